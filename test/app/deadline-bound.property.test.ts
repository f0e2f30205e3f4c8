import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../shared/app/detection-bound.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { effectiveDeadline, nextDueAt, stuckDeadline } from '../../shared/domain/deadlines.js';
import { VigilError } from '../../shared/domain/errors.js';
import { decodeGrants } from '../../shared/domain/extension-ledger.js';
import { defaultExtensionPolicy } from '../../shared/domain/policy.js';
import { secondsToMs } from '../../shared/domain/time.js';
import { T0 } from '../support/fixtures.js';
import { submit, testManager, useTestManager, type TestManager } from './support/test-manager.js';
import { TimeoutWriteFaults } from './support/timeout-write-faults.js';

/**
 * Random sequences of progress, heartbeats, extensions, failures,
 * recoveries (a failed worker's next report), completions, cancels, clock moves and timer deliveries
 * (some wake-ups lost: the sweep runs every `SWEEP_INTERVAL_MS`) run through the real use cases on
 * dynalite with an injected clock; after every step the bound is checked. Some steps throttle the
 * next try of a job's ending write once (a hot item), whichever call makes it: a delivered wake-up
 * (SQS delivers it again), the sweep (it tries again in the same sweep), a completion or a cancel
 * (the caller gets a 5xx). The bound holds unchanged: one sweep's two tries absorb a throttle.
 */

const CAP_SECONDS = budgetCapSeconds(defaultExtensionPolicy);
const JOBS = [
  { jobId: 'job-1', workers: ['w1', 'w2'], timeoutSeconds: 20, stuckThresholdSeconds: 60 },
  { jobId: 'job-2', workers: ['w2', 'w3'], timeoutSeconds: 45, stuckThresholdSeconds: 40 },
] as const;
const WORKERS = ['w1', 'w2', 'w3'] as const;

type Step =
  | { kind: 'advance'; seconds: number }
  | { kind: 'progress'; job: 0 | 1; slot: 0 | 1; advances: boolean }
  | { kind: 'extend'; job: 0 | 1; slot: 0 | 1; progress: number }
  | { kind: 'fail'; worker: 0 | 1 | 2 }
  | { kind: 'complete'; job: 0 | 1; slot: 0 | 1; failed: boolean }
  | { kind: 'cancel'; job: 0 | 1 }
  | { kind: 'deliver' }
  | { kind: 'throttle'; job: 0 | 1 };

const index2 = fc.constantFrom(0 as const, 1 as const);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('progress' as const), job: index2, slot: index2, advances: fc.boolean() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('extend' as const), job: index2, slot: index2, progress: fc.double({ min: 0.01, max: 1, noNaN: true }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('fail' as const), worker: fc.constantFrom(0 as const, 1 as const, 2 as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), job: index2, slot: index2, failed: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), job: index2 }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'deliver' as const }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('throttle' as const), job: index2 }) },
);

/** What the test knows happened: the last real progress per job (a value above the workflow's last). */
interface Model {
  tokens: Map<string, string>;
  progress: Map<string, number>;
  lastProgressAt: Map<string, number>;
  lastSweepAt: number;
}

const wf = (worker: string) => `wf-${worker}`;

/** Runs a use case the way a handler does: a typed error is a 4xx answer, a throttle a 5xx one, anything else a failure. */
async function answer(call: () => Promise<unknown>): Promise<unknown> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof VigilError) return error.code;
    if (isThrottle(error)) return 'throttled';
    throw error;
  }
}

const isThrottle = (error: unknown): boolean => error instanceof ProvisionedThroughputExceededException;

/** A throttled wake-up stays current: the next delivery (SQS's, after its visibility timeout) or the sweep fires it. */
async function deliverDueTimers(m: TestManager) {
  for (const { jobId } of JOBS) {
    const timer = m.timers.current(jobId);
    if (timer && timer.dueAt <= m.clock.now()) {
      await fireJobTimer(m.deps, timer).catch((error: unknown) => {
        if (!isThrottle(error)) throw error;
      });
    }
  }
}

async function apply(m: TestManager, model: Model, s: Step, throttles: TimeoutWriteFaults): Promise<void> {
  const now = m.clock.now();
  switch (s.kind) {
    case 'advance': {
      const target = now + s.seconds * 1000;
      // The scheduled sweep runs at every interval boundary the clock passes.
      while (model.lastSweepAt + SWEEP_INTERVAL_MS <= target) {
        model.lastSweepAt += SWEEP_INTERVAL_MS;
        m.clock.set(model.lastSweepAt);
        await sweepJobTimers(m.deps);
      }
      m.clock.set(target);
      return;
    }
    case 'progress': {
      const { jobId, workers } = JOBS[s.job];
      const workerId = workers[s.slot];
      const key = `${jobId}/${workerId}`;
      const value = (model.progress.get(key) ?? 0) + (s.advances ? 0.01 : 0);
      // Progress counts while the job runs and the workflow has no outcome.
      const job = await m.getJob(jobId);
      if (s.advances && job.status === 'RUNNING' && job.workflowMarks[(workers as readonly string[]).indexOf(workerId)] === 'a') {
        model.progress.set(key, value);
        model.lastProgressAt.set(jobId, now);
      }
      await answer(() =>
        reportProgress(m.deps, { jobId, workflowId: wf(workerId), workerId, token: model.tokens.get(key) ?? '', progress: Math.min(1, value) }),
      );
      return;
    }
    case 'extend': {
      const { jobId, workers } = JOBS[s.job];
      const workerId = workers[s.slot];
      const result = await answer(() =>
        requestExtension(m.deps, { workerId, token: model.tokens.get(`${jobId}/${workerId}`) ?? '', currentProgress: s.progress }),
      );
      if (typeof result === 'object' && result !== null && (result as { granted: boolean }).granted) {
        // Seed 000 Part 8 item 3: a granted request shows progress of the job its token names, and only that job's.
        const stored = await m.getJob(jobId);
        const index = (workers as readonly string[]).indexOf(workerId);
        if (stored.status === 'RUNNING' && stored.workflowMarks[index] === 'a') model.lastProgressAt.set(jobId, now);
      }
      return;
    }
    case 'fail':
      await reportWorkerFailure(m.deps, WORKERS[s.worker]);
      return;
    case 'complete': {
      const { jobId, workers } = JOBS[s.job];
      const workerId = workers[s.slot];
      const token = model.tokens.get(`${jobId}/${workerId}`) ?? '';
      await answer(() => completeWorkflow(m.deps, { jobId, workflowId: wf(workerId), workerId, outcome: s.failed ? 'failed' : 'completed', token }));
      return;
    }
    case 'cancel':
      await answer(() => cancelJob(m.deps, JOBS[s.job].jobId, 'property'));
      return;
    case 'deliver':
      await deliverDueTimers(m);
      return;
    case 'throttle':
      throttles.inject(JOBS[s.job].jobId, 'fail', 1);
      return;
  }
}

async function checkBound(m: TestManager, model: Model): Promise<void> {
  const now = m.clock.now();
  for (const spec of JOBS) {
    const job = await m.getJob(spec.jobId);
    const t = job.tracking;
    // One worker's contribution to a running job is at most one budget (AD-26: 58.125 s), its current one.
    for (const grant of job.status === 'RUNNING' ? decodeGrants(t.workerGrants).values() : []) {
      expect(grant.seconds).toBeLessThanOrEqual(CAP_SECONDS);
      const workerId = spec.workers[grant.workerIndex];
      const worker = workerId === undefined ? undefined : await m.jobs.getWorker(workerId);
      if (worker) {
        expect(grant.epoch).toBe(worker.budget.epoch);
        expect(grant.seconds).toBeLessThanOrEqual(worker.budget.totalSeconds);
      }
    }
    if (job.status === 'RUNNING') {
      // No job RUNNING past its effective deadline (or stuck deadline) plus the detection bound.
      expect(now).toBeLessThanOrEqual(effectiveDeadline(t) + DETECTION_BOUND_MS);
      expect(now).toBeLessThanOrEqual(stuckDeadline(t) + DETECTION_BOUND_MS);
      expect(now).toBeLessThanOrEqual(T0 + secondsToMs(spec.timeoutSeconds + spec.workers.length * CAP_SECONDS) + DETECTION_BOUND_MS);
      // The armed wake-up is never later than what is due: a deadline moved earlier re-armed it.
      expect(job.timerDueAt).toBeLessThanOrEqual(nextDueAt(job, m.deps.policy));
    } else if (job.status === 'TIMED_OUT') {
      // No job finished before its deadline unless stuck (or cancelled, completed).
      const finishedAt = job.finishedAt ?? 0;
      if (t.timeoutReason === 'timeout') expect(finishedAt).toBeGreaterThanOrEqual(effectiveDeadline(t));
      if (t.timeoutReason === 'stuck') {
        expect(finishedAt).toBeGreaterThanOrEqual((model.lastProgressAt.get(spec.jobId) ?? T0) + secondsToMs(spec.stuckThresholdSeconds));
      }
    }
  }
}

/** Every worker of a finished job is told to stop on its next call; no item is near 400 KB. */
async function checkEnd(m: TestManager, model: Model): Promise<void> {
  for (const spec of JOBS) {
    const job = await m.getJob(spec.jobId);
    if (job.status === 'RUNNING') continue;
    for (const workerId of spec.workers) {
      const token = model.tokens.get(`${spec.jobId}/${workerId}`) ?? '';
      const told = await reportProgress(m.deps, { jobId: spec.jobId, workflowId: wf(workerId), workerId, token });
      expect(told).toMatchObject({ cancel: true, status: job.status });
    }
  }
  const { Items = [] } = await m.dynamo.doc.send(new ScanCommand({ TableName: m.tableName }));
  for (const item of Items) expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(400 * 1024);
}

describe('the deadline bound holds under random worker behaviour (real use cases on dynalite)', () => {
  const harness = useTestManager();

  it('after every step: no job past its deadline plus the detection bound, none finished early, one budget per worker per job', { timeout: 120_000 }, async () => {
    await fc.assert(
      // Which jobs' ending write is throttled from the start (its first try, wherever it comes from).
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), fc.tuple(fc.boolean(), fc.boolean()), async (steps, throttledFromStart) => {
        const throttles = new TimeoutWriteFaults();
        const m = await testManager(harness.dynamo, { store: (doc, tableName) => throttles.wrap(new DynamoJobStore(doc, tableName)) });
        const model: Model = { tokens: new Map(), progress: new Map(), lastProgressAt: new Map(), lastSweepAt: T0 };
        for (const spec of JOBS) {
          const { tokens } = await submit(m, {
            jobId: spec.jobId,
            timeoutSeconds: spec.timeoutSeconds,
            stuckThresholdSeconds: spec.stuckThresholdSeconds,
            workflows: spec.workers.map((workerId) => ({ workflowId: wf(workerId), workerId })),
          });
          for (const workerId of spec.workers) model.tokens.set(`${spec.jobId}/${workerId}`, tokens[wf(workerId)] ?? '');
          if (throttledFromStart[JOBS.indexOf(spec)]) throttles.inject(spec.jobId, 'fail', 1);
        }
        for (const s of steps) {
          await apply(m, model, s, throttles);
          await checkBound(m, model);
        }
        await checkEnd(m, model);
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 12) },
    );
  });
});
