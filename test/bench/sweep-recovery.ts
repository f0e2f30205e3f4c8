/**
 * Bench: the backstop sweep's recovery capacity. On an in-memory dynalite with an injected clock,
 * RECOVERED jobs whose wake-ups were "lost" are overdue; one sweep times them all out, and its rate
 * over its time budget (SWEEP_BUDGET_MS) is the capacity N per sweep that the detection bound is
 * stated for, and how many of its fires end within the detection bound (each entry due just after
 * the sweep before started, the sweep's clock running in real time), at the sweep's concurrency and
 * at twice it. Baseline, same run: firing the same number of overdue wake-ups directly (no index
 * query), at the sweep's concurrency. Then fairness: a query batch of always-failing wake-ups in
 * one shard next to a lost one per other shard, swept once.
 */
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../../shared/adapters/aws/dynamo-pool-store.js';
import { timerShardOf, TIMER_SHARDS } from '../../shared/adapters/aws/jobs-table.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import type { ManagerDeps } from '../../shared/app/manager-deps.js';
import { inBatches } from '../../shared/app/in-batches.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { DETECTION_BOUND_MS, SWEEP_ENTRIES_WITHIN_BOUND, SWEEP_FIRES_PER_SECOND, SWEEP_INTERVAL_MS } from '../../shared/app/detection-bound.js';
import { SWEEP_BUDGET_MS, SWEEP_CONCURRENCY, SWEEP_GRACE_MS, SWEEP_QUERY_BATCH, sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { PageCursors } from '../../shared/app/page-cursors.js';
import { WorkflowTokens } from '../../shared/app/workflow-tokens.js';
import type { Job } from '../../shared/domain/job.js';
import type { TimerRequest } from '../../shared/ports/timers.js';
import { ManualClock, RecordingBus, RecordingTelemetry, RecordingTimers } from '../app/support/recording-ports.js';
import { startTestDynamo } from '../support/dynalite.js';
import { MANAGER_ID, policy, REGION, T0 } from '../support/fixtures.js';
import { fmtMs, formatTable } from './table.js';

/** Lost wake-ups recovered by the measured sweep: enough for a steady rate (several query batches). */
const RECOVERED = 1_000;

/** Writes of these jobs' terminal state fail, as a fire that keeps failing would. */
class FailingStore extends DynamoJobStore {
  readonly failing = new Set<string>();
  override saveJob(job: Job, expectedVersion: number): Promise<Job> {
    if (this.failing.has(job.jobId) && job.status !== 'RUNNING') return Promise.reject(new Error('injected failure'));
    return super.saveJob(job, expectedVersion);
  }
}

async function managerOn(dynamo: Awaited<ReturnType<typeof startTestDynamo>>) {
  const tableName = await dynamo.table();
  const jobs = new FailingStore(dynamo.doc, tableName);
  const clock = new ManualClock(T0);
  const timers = new RecordingTimers();
  const telemetry = new RecordingTelemetry();
  const deps: ManagerDeps = {
    region: REGION,
    managerId: MANAGER_ID,
    jobs,
    pools: new DynamoPoolStore(dynamo.doc, tableName),
    timers,
    bus: new RecordingBus(),
    clock,
    policy: policy(),
    tokens: new WorkflowTokens(Buffer.from('bench-secret')),
    cursors: new PageCursors(Buffer.from('bench-secret')),
    telemetry,
  };
  return { deps, jobs, clock, timers, telemetry };
}

const LOST_TIMEOUT_SECONDS = 10;

const submitLost = (deps: ManagerDeps, jobIds: readonly string[]) =>
  inBatches(jobIds, SWEEP_CONCURRENCY, async (jobId) => {
    await submitJob(deps, { jobId, timeoutSeconds: LOST_TIMEOUT_SECONDS, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: `w-${jobId}` }] });
  });

function idsInShard(shard: number, count: number, prefix: string): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) if (timerShardOf(`${prefix}-${i}`) === String(shard)) ids.push(`${prefix}-${i}`);
  return ids;
}

export async function benchSweepRecovery(): Promise<string> {
  const dynamo = await startTestDynamo();
  try {
    const batch = Array.from({ length: RECOVERED }, (_, i) => `lost-${String(i).padStart(4, '0')}`);

    // One sweep over a full batch of overdue wake-ups, all due just after the sweep before started
    // (the bound's worst case), its clock running in real time: it counts the fires that end past the bound.
    const measured = async (concurrency: number) => {
      const swept = await managerOn(dynamo);
      await submitLost(swept.deps, batch);
      const sweptAt = T0 + LOST_TIMEOUT_SECONDS * 1_000 + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS;
      const startedMs = performance.now();
      swept.deps.clock = { now: () => sweptAt + (performance.now() - startedMs) };
      const { fired } = await sweepJobTimers(swept.deps, { concurrency });
      const tookMs = performance.now() - startedMs;
      return { fired, tookMs, timedOut: await countTimedOut(swept.jobs, batch), withinBound: fired - swept.telemetry.count('SweptWakeUpPastBound') };
    };
    const stated = await measured(SWEEP_CONCURRENCY);
    const { fired, tookMs: sweepMs } = stated;
    // The same at twice the slots: does the in-flight count bound the rate here?
    const doubled = await measured(2 * SWEEP_CONCURRENCY);

    // Baseline: the same wake-ups fired directly, at the sweep's concurrency.
    const direct = await managerOn(dynamo);
    await submitLost(direct.deps, batch);
    direct.clock.set(T0 + 60_000);
    const wakeUps = batch.map((jobId) => direct.timers.expectArmed(jobId));
    const directStart = performance.now();
    await inBatches(wakeUps, SWEEP_CONCURRENCY, (timer: TimerRequest) => fireJobTimer(direct.deps, timer));
    const directMs = performance.now() - directStart;

    // Fairness: a full batch failing in shard 0, one lost wake-up in every other shard.
    const fair = await managerOn(dynamo);
    const failing = idsInShard(0, SWEEP_QUERY_BATCH, 'failing');
    failing.forEach((jobId) => fair.jobs.failing.add(jobId));
    const others = Array.from({ length: TIMER_SHARDS - 1 }, (_, i) => idsInShard(i + 1, 1, 'other')[0] ?? '');
    await submitLost(fair.deps, [...failing, ...others]);
    fair.clock.set(T0 + 60_000);
    const fairStart = performance.now();
    await sweepJobTimers(fair.deps);
    const fairMs = performance.now() - fairStart;
    const othersOut = await countTimedOut(fair.jobs, others);

    const perSweep = Math.floor((fired / Math.max(sweepMs, 1)) * SWEEP_BUDGET_MS);
    return [
      formatTable(
        ['measured', 'wake-ups', 'timed out', 'took'],
        [
          ['one sweep, every wake-up overdue (index query + fire)', String(fired), String(stated.timedOut), fmtMs(sweepMs)],
          [`the same sweep at ${2 * SWEEP_CONCURRENCY} in flight`, String(doubled.fired), String(doubled.timedOut), fmtMs(doubled.tookMs)],
          ['baseline: the same wake-ups fired directly, same concurrency', String(wakeUps.length), String(wakeUps.length), fmtMs(directMs)],
          [`one sweep: ${SWEEP_QUERY_BATCH} failing in shard 0 + 1 lost in each other shard`, String(others.length), String(othersOut), fmtMs(fairMs)],
        ],
      ),
      `   Recovery capacity: ${fired} lost wake-ups in ${fmtMs(sweepMs)} (${((fired / sweepMs) * 1_000).toFixed(0)}/s at ${SWEEP_CONCURRENCY} in flight); ` +
        `over the sweep's ${SWEEP_BUDGET_MS / 1_000} s budget → N ≈ ${perSweep.toLocaleString('en-US')} per sweep, one sweep a minute, per region.`,
      `   Within the ${DETECTION_BOUND_MS / 1_000} s bound (each due just after the sweep before; SweptWakeUpPastBound): ${stated.withinBound} of ${fired} at ${SWEEP_CONCURRENCY} in flight ` +
        `(stated: ${SWEEP_ENTRIES_WITHIN_BOUND} a sweep at ${SWEEP_FIRES_PER_SECOND}/s), ${doubled.withinBound} of ${doubled.fired} at ${2 * SWEEP_CONCURRENCY}; ` +
        `${2 * SWEEP_CONCURRENCY} in flight ${((doubled.fired / doubled.tookMs) * 1_000).toFixed(0)}/s.`,
      `   Fairness: ${othersOut} of ${others.length} lost wake-ups in the other shards recovered by the first sweep despite the failing shard.`,
    ].join('\n');
  } finally {
    await dynamo.close();
  }
}

async function countTimedOut(jobs: DynamoJobStore, jobIds: readonly string[]): Promise<number> {
  let count = 0;
  for (const jobId of jobIds) if ((await jobs.getJob(jobId))?.status === 'TIMED_OUT') count++;
  return count;
}
