import { GATE } from '../../adapters/local/event-routes.js';
import { submitGateJob } from '../../app/gate/submit-gate-job.js';
import { submitJob } from '../../app/submit-job.js';
import { GateDown, type SimNodes } from './nodes.js';
import type { JobSpec } from './plan.js';
import type { ProgressLog } from './progress-log.js';
import { SimWorker } from './sim-worker.js';
import { SIM_EPOCH, type RetryPolicy, type World } from './world.js';

/** A client resubmits the same body (idempotent on jobId) until every region has the job. */
const RESUBMIT: RetryPolicy = { delayMs: () => 30_000, maxAttempts: 40 };

type Tokens = Array<{ workflowId: string; token: string }>;

/** Submits each job of the plan at its time (through the gate or to its region) and starts its workers. */
export function scheduleSubmissions(world: World, nodes: SimNodes, log: ProgressLog): void {
  for (const job of world.plan.jobs) {
    world.at(SIM_EPOCH + job.submitAtMs, `submit ${job.jobId}`, async () => {
      world.log(`client submits ${job.jobId} ${job.viaGate ? `via the gate to ${job.regions.join(',')}` : `to ${job.regions[0]}`}`);
      const started = new Set<string>();
      const node = job.viaGate ? GATE : (job.regions[0] ?? '');
      await world.invoke(node, 'submit-job', async () => {
        world.calls.httpRequests.client++;
        const tokensByRegion = await world.invocations.answerOf(node, job.viaGate ? submitThroughGate(world, nodes, job) : submitLocally(nodes, job));
        for (const [region, tokens] of tokensByRegion) startWorkers(world, nodes, log, job, region, tokens, started);
      }, RESUBMIT);
    });
  }
}

async function submitThroughGate(world: World, nodes: SimNodes, job: JobSpec): Promise<Map<string, Tokens>> {
  if (world.gateDown()) throw new GateDown();
  const datacenters = Object.fromEntries(job.regions.map((region) => [region, { workflows: workflowsIn(job, region) }]));
  const result = await submitGateJob(nodes.gate.deps, {
    jobId: job.jobId,
    timeoutSeconds: job.timeoutSeconds,
    stuckThresholdSeconds: job.stuckThresholdSeconds,
    datacenters,
  });
  return new Map(Object.entries(result.view.datacenters).map(([region, dc]) => [region, dc.workflows]));
}

async function submitLocally(nodes: SimNodes, job: JobSpec): Promise<Map<string, Tokens>> {
  const region = job.regions[0] ?? '';
  const node = nodes.regions.get(region);
  if (!node) throw new Error(`no region ${region}`);
  const result = await submitJob(node.deps, {
    jobId: job.jobId,
    timeoutSeconds: job.timeoutSeconds,
    stuckThresholdSeconds: job.stuckThresholdSeconds,
    workflows: workflowsIn(job, region),
  });
  return new Map([[region, result.view.workflows]]);
}

const workflowsIn = (job: JobSpec, region: string) =>
  job.workers.filter((w) => w.region === region).map((w) => ({ workflowId: w.workflowId, workerId: w.workerId }));

function startWorkers(world: World, nodes: SimNodes, log: ProgressLog, job: JobSpec, region: string, tokens: Tokens, started: Set<string>) {
  const node = nodes.regions.get(region);
  if (!node) return;
  log.tokensReceived(job.jobId, region);
  for (const { workflowId, token } of tokens) {
    const spec = job.workers.find((w) => w.region === region && w.workflowId === workflowId);
    if (!spec || started.has(spec.workerId)) continue;
    started.add(spec.workerId);
    new SimWorker(world, spec, job.jobId, node.deps, log).start(token);
  }
}
