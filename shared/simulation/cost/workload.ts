import type { Plan } from '../world/plan.js';
import { NO_RATES } from '../world/plan.js';
import { REGION_NAMES } from '../world/generate-plan.js';
import { sdkHeartbeatMs } from '../../sdk/workflow.js';

/** A cost workload: a job's shape (regions, workflows per region, job length, progress period). */
export interface Workload {
  name: string;
  regions: number;
  workflows: number;
  durationMs: number;
  progressEveryMs: number;
}

const STUCK_THRESHOLD_SECONDS = 120;

/** `jobs` well-behaved jobs of the workload, all submitted at once, no faults. */
export function workloadPlan(workload: Workload, jobs: number): Plan {
  const regions = REGION_NAMES.slice(0, workload.regions);
  return {
    seed: 1,
    regions,
    jobs: Array.from({ length: jobs }, (_, j) => ({
      // As long as the UUIDs jobs get by default: item sizes, and so write units, are the deployed ones.
      jobId: `00000000-0000-4000-8000-${String(j).padStart(12, '0')}`,
      viaGate: regions.length > 1,
      regions,
      timeoutSeconds: Math.round((workload.durationMs * 2) / 1000) + 60,
      stuckThresholdSeconds: STUCK_THRESHOLD_SECONDS,
      submitAtMs: 0,
      workers: regions.flatMap((region) =>
        Array.from({ length: workload.workflows }, (_, w) => ({
          workerId: `wk-${j}-${region}-${w}`,
          workflowId: `wf-${w}`,
          region,
          behaviour: 'normal' as const,
          durationMs: workload.durationMs,
          faultAfterMs: 0,
          sdkHeartbeatMs: sdkHeartbeatMs(STUCK_THRESHOLD_SECONDS),
        })),
      ),
    })),
    faults: [],
    rates: NO_RATES,
    progressEveryMs: workload.progressEveryMs,
    pools: [],
  };
}
