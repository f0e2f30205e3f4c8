import { GATE } from '../adapters/local/event-routes.js';
import { sweepGateTimers } from '../app/gate/sweep-gate-timers.js';
import { sweepJobTimers } from '../app/sweep-job-timers.js';
import { cancelPool } from '../app/pools/cancel-pool.js';
import { takeOverJob } from '../app/take-over-job.js';
import { PoolInvariants } from './pools/pool-invariants.js';
import { poolActiveUntil, schedulePools } from './pools/sim-pools.js';
import { CLIENT_RETRY, NO_RETRY } from './world/delivery.js';
import { DeadSweeps } from './world/dead-sweeps.js';
import { Invariants, type Violation } from './world/invariants.js';
import { CancelInvariants } from './world/cancel-invariants.js';
import { JobCancels, scheduleJobCancels } from './world/job-cancels.js';
import { scheduleKeyRotations } from './world/key-rotations.js';
import { buildNodes, type SimNodes } from './world/nodes.js';
import type { Plan } from './world/plan.js';
import { ProgressLog } from './world/progress-log.js';
import { scheduleSubmissions } from './world/submissions.js';
import { SIM_EPOCH, World } from './world/world.js';
import type { AwsCalls } from './world/aws-calls.js';
import type { CrashTally } from './world/crash-tally.js';
import type { DynamoUsage } from './dynamo/dynamo-usage.js';
import type { StoreKind } from './dynamo/sim-store.js';

const SWEEP_EVERY_MS = 60_000;
/** After the last deadline and the last fault, this long for every detection bound to pass. */
export const SETTLE_MS = 20 * 60_000;

export interface RunResult {
  seed: number;
  digest: string;
  violations: Violation[];
  steps: number;
  simulatedMs: number;
  trace: string[];
  calls: AwsCalls;
  dynamo: DynamoUsage[];
  largestItemBytes: number;
  /** Regions that finished other than TIMED_OUT after the gate's global timeout (not a violation). */
  finishedAfterGlobalTimeout: string[];
  /** Crashes by point and route. */
  crashes: CrashTally;
}

export function horizonOf(plan: Plan): number {
  const lastDeadline = Math.max(
    0,
    ...plan.jobs.map((job) => job.submitAtMs + job.timeoutSeconds * 2_000),
    ...plan.pools.map((pool) => poolActiveUntil(pool) - SIM_EPOCH),
  );
  const lastFault = Math.max(0, ...plan.faults.map((f) => ('untilMs' in f ? f.untilMs : f.atMs)));
  return SIM_EPOCH + Math.max(lastDeadline, lastFault) + SETTLE_MS;
}

function scheduleSweeps(world: World, nodes: SimNodes, horizon: number, deadSweeps: DeadSweeps): void {
  const every = (node: string, run: () => Promise<void>) => {
    const label = `${node}:sweep`;
    const tick = async () => {
      if (!(await world.invoke(node, 'sweep', run, NO_RETRY))) deadSweeps.record(node, world.now);
      if (world.now + SWEEP_EVERY_MS <= horizon) world.after(SWEEP_EVERY_MS, label, tick);
    };
    world.after(SWEEP_EVERY_MS, label, tick);
  };
  for (const [region, node] of nodes.regions) every(region, async () => void (await sweepJobTimers(node.deps)));
  every(GATE, async () => {
    if (!world.gateDown()) await sweepGateTimers(nodes.gate.deps);
  });
}

/** The operator's calls the plan schedules: job takeovers and pool cancels (a client's job cancels: `job-cancels.ts`). */
function scheduleOperator(world: World, nodes: SimNodes): void {
  for (const fault of world.plan.faults) {
    if (fault.kind === 'takeover') {
      const node = nodes.regions.get(fault.region);
      if (!node) continue;
      world.at(SIM_EPOCH + fault.atMs, `takeover ${fault.jobId}`, async () => {
        world.log(`operator takes over ${fault.jobId} in ${fault.region}`);
        world.calls.httpRequests.client++;
        await world.invoke(fault.region, 'take-over-job', async () => void (await takeOverJob(node.deps, fault.jobId)), NO_RETRY);
      });
    }
    if (fault.kind === 'pool-cancel') {
      const region = world.plan.pools.find((pool) => pool.poolId === fault.poolId)?.region;
      const node = region === undefined ? undefined : nodes.regions.get(region);
      if (!node) continue;
      world.at(SIM_EPOCH + fault.atMs, `cancel ${fault.poolId}`, async () => {
        world.log(`operator cancels ${fault.poolId} in ${region}`);
        world.calls.httpRequests.client++;
        await world.invoke(node.name, 'cancel-pool', async () => void (await cancelPool(node.deps, fault.poolId, 'operator')), CLIENT_RETRY);
      });
    }
  }
}

/** Runs one plan to its horizon (or its first violation) and checks the invariants after every step. */
export interface RunOptions {
  keepTrace?: boolean;
  horizonMs?: number;
  /** `dynalite` runs every node on a real DynamoDB API implementation instead of the in-memory store. */
  store?: StoreKind;
  /** Off only for the cost model's big pool, which counts calls (default on). */
  checkInvariants?: boolean;
}

export async function runPlan(plan: Plan, options: RunOptions = {}): Promise<RunResult> {
  const world = new World(plan, options.keepTrace ?? false);
  const nodes = await buildNodes(world, options.store);
  const log = new ProgressLog();
  const deadSweeps = new DeadSweeps();
  const report = (invariant: string, id: string | undefined, message: string) => invariants.violate(invariant, id, message);
  const cancels = new JobCancels();
  const invariants = new Invariants(world, nodes, log, deadSweeps, new CancelInvariants(world, cancels, deadSweeps, report));
  const horizon = options.horizonMs === undefined ? horizonOf(plan) : SIM_EPOCH + options.horizonMs;
  scheduleSubmissions(world, nodes, log);
  scheduleSweeps(world, nodes, horizon, deadSweeps);
  scheduleOperator(world, nodes);
  scheduleKeyRotations(world, nodes);
  scheduleJobCancels(world, nodes, cancels);
  const poolInvariants = new PoolInvariants(world, nodes, schedulePools(world, nodes, horizon), report, deadSweeps);

  const violations = invariants.violations;
  const allNodes = [...nodes.regions.values(), nodes.gate];
  await world.run(
    horizon,
    async () => {
      const written = new Map(allNodes.map((node) => [node.name, node.dynamo.drainWrittenPartitions()]));
      if (options.checkInvariants === false) return;
      await invariants.afterStep(written);
      await poolInvariants.afterStep(written);
      for (const stale of world.staleChanges.splice(0)) violations.push({ invariant: stale.invariant ?? 'stale-fence', jobId: stale.jobId, message: stale.message, atMs: world.now });
      for (const refusal of world.refusedTokens.splice(0)) violations.push({ invariant: 'valid-token-honoured', jobId: refusal.holder, message: refusal.message, atMs: world.now });
      for (const error of world.unexpectedErrors.splice(0)) violations.push({ invariant: 'handler-error', message: error, atMs: world.now });
    },
    () => violations.length > 0,
  );
  if (violations.length === 0 && options.checkInvariants !== false) {
    await invariants.atEnd();
    await poolInvariants.atEnd();
  }
  const stores = [...[...nodes.regions.values()].map((n) => n.dynamo), nodes.gate.dynamo];
  await Promise.all(stores.map((store) => store.close()));
  return {
    seed: plan.seed,
    digest: world.traceDigest(),
    violations,
    steps: world.steps,
    simulatedMs: world.now - SIM_EPOCH,
    trace: world.trace,
    calls: world.calls,
    dynamo: stores.map((s) => s.usage),
    largestItemBytes: Math.max(...stores.map((s) => s.largestItemBytes)),
    finishedAfterGlobalTimeout: invariants.finishedAfterGlobalTimeout(),
    crashes: world.invocations.crashes,
  };
}
