import { horizonOf, runPlan, type RunResult } from '../run-plan.js';
import { SIM_EPOCH } from '../world/world.js';
import { combine, NO_USAGE, scale, type Usage } from './usage.js';
import { workloadPlan, type Workload } from './workload.js';

export function usageOf(result: RunResult): Usage {
  const dynamo = result.dynamo.reduce(
    (sum, usage) => ({ reads: sum.reads + usage.readUnits, writes: sum.writes + usage.writeUnits, viewWrites: sum.viewWrites + usage.viewWriteUnits }),
    { reads: 0, writes: 0, viewWrites: 0 },
  );
  return {
    lambdaInvocations: result.calls.totalInvocations,
    dynamoWriteUnits: dynamo.writes,
    dynamoViewWriteUnits: dynamo.viewWrites,
    dynamoReadUnits: dynamo.reads,
    sqsRequests: result.calls.sqsRequests,
    schedulerInvocations: result.calls.schedulerInvocations,
    eventBridgeEvents: result.calls.eventBridgeEvents,
    forwardedEvents: result.calls.forwardedEvents,
    apiRequestsWorker: result.calls.httpRequests.worker,
    apiRequestsClient: result.calls.httpRequests.client,
    appLogLines: result.calls.logLines,
  };
}

export interface VigilMeasurement {
  /** What one job adds, from submit to its last wake-up. */
  perJob: Usage;
  /** What the regions cost with no job at all (sweeps), per hour. */
  idlePerHour: Usage;
  /** Progress reports per job, to express writes per report. */
  reportsPerJob: number;
}

/**
 * Runs `jobs` jobs of the workload through the simulator, and the same world with no job for the
 * same time; the difference is the per-job usage, the empty run the fixed (sweep) usage.
 */
export async function measureVigil(workload: Workload, jobs = 2): Promise<VigilMeasurement> {
  const plan = workloadPlan(workload, jobs);
  const horizonMs = horizonOf(plan) - SIM_EPOCH;
  const [loaded, idle] = await Promise.all([runPlan(plan, { horizonMs }), runPlan({ ...plan, jobs: [] }, { horizonMs })]);
  if (loaded.violations.length > 0) throw new Error(`cost workload ${workload.name} broke ${loaded.violations[0]?.invariant}`);
  const perJob = scale(combine(usageOf(loaded), usageOf(idle), -1), 1 / jobs);
  const reportsPerWorkflow = Math.floor(workload.durationMs / workload.progressEveryMs);
  return {
    perJob,
    idlePerHour: scale(usageOf(idle), 3_600_000 / horizonMs),
    reportsPerJob: reportsPerWorkflow * workload.workflows * workload.regions,
  };
}

export { NO_USAGE };
