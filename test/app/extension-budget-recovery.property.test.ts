import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { decodeGrants } from '../../shared/domain/extension-ledger.js';
import { defaultExtensionPolicy } from '../../shared/domain/policy.js';
import { secondsToMs } from '../../shared/domain/time.js';
import { HEALTH_WRITE_INTERVAL_MS, type WorkerHealth } from '../../shared/domain/worker-health.js';
import { T0 } from '../support/fixtures.js';
import { ReportOrderStore, type ReportStep } from './support/report-order-store.js';
import { submit, testManager, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * AD-26 on the recovery path: random sequences of reports (each with its workflow write and its
 * health re-read landing in a random order), silences long enough to fail a worker, the reports that
 * recover it, and extension requests, through the real use cases on dynalite. After every step no
 * worker adds more than one budget (58.125 s) to a job, and every report is checked against what
 * really happened: one ending a silence past the failure point gives a fresh budget, one before it
 * never does. Jobs run long enough never to end here.
 */

const CAP_SECONDS = budgetCapSeconds(defaultExtensionPolicy);
const JOBS = [
  { jobId: 'job-1', workers: ['w1', 'w2'] },
  { jobId: 'job-2', workers: ['w1'] },
] as const;
const SLOTS = JOBS.flatMap(({ jobId, workers }) => workers.map((workerId) => ({ jobId, workerId })));
const WORKERS = ['w1', 'w2'] as const;

function slotAt(index: number): { jobId: string; workerId: string } {
  const found = SLOTS[index];
  if (!found) throw new Error(`no workflow slot ${index}`);
  return found;
}
const wf = (worker: string) => `wf-${worker}`;

type Step =
  | { kind: 'advance'; seconds: number }
  | { kind: 'report'; slot: number; advances: boolean; first: ReportStep }
  | { kind: 'extend'; slot: number; showsProgress: boolean }
  /** Busy on one workflow: a report every `everySeconds`, `times` times, the clock left at the last one. */
  | { kind: 'busy'; slot: number; times: number; everySeconds: number; first: ReportStep };

const slot = fc.integer({ min: 0, max: SLOTS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  // Short moves (a worker reporting on one workflow keeps itself alive, its other workflows age), and
  // long ones: past any worker's failure point (1 + 30 + 58.125 + 30 s of silence) in one move.
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 60 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 61, max: 150 }) }) },
  {
    weight: 3,
    arbitrary: fc.record({ kind: fc.constant('report' as const), slot, advances: fc.boolean(), first: fc.constantFrom<ReportStep>('workflow write', 'health re-read') }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('extend' as const), slot, showsProgress: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('busy' as const),
      slot,
      times: fc.integer({ min: 1, max: 8 }),
      everySeconds: fc.integer({ min: 5, max: 40 }),
      first: fc.constantFrom<ReportStep>('workflow write', 'health re-read'),
    }),
  },
);

/** What the test knows happened. */
interface Model {
  tokens: Map<string, string>;
  progress: Map<string, number>;
  /** The worker's last call (every report is a healthcheck; an extension request is not). */
  lastCallAt: Map<string, number>;
  /** Seconds answered `granted` per worker and budget epoch. */
  granted: Map<string, number>;
  recoveries: number;
}

async function workerOf(m: TestManager, workerId: string): Promise<WorkerHealth> {
  const worker = await m.jobs.getWorker(workerId);
  if (!worker) throw new Error(`worker ${workerId} has no item`);
  return worker;
}

async function report(m: TestManager, model: Model, s: Extract<Step, { kind: 'report' }>): Promise<void> {
  const { jobId, workerId } = slotAt(s.slot);
  const key = `${jobId}/${workerId}`;
  const now = m.clock.now();
  const before = await workerOf(m, workerId);
  const silentMs = now - (model.lastCallAt.get(workerId) ?? T0);
  const policy = m.deps.policy;
  const healthMs = secondsToMs(policy.extensions.baseSeconds + before.budget.totalSeconds);
  const failsAfterMs = HEALTH_WRITE_INTERVAL_MS + healthMs + secondsToMs(policy.workerSuspicionSeconds);
  const progress = (model.progress.get(key) ?? 0) + (s.advances ? 0.001 : 0);
  model.progress.set(key, progress);
  (m.jobs as ReportOrderStore).nextReportIn(s.first);
  await reportProgress(m.deps, { jobId, workflowId: wf(workerId), workerId, token: model.tokens.get(key) ?? '', progress });
  model.lastCallAt.set(workerId, now);
  const after = await workerOf(m, workerId);
  // The store holds the last call to within HEALTH_WRITE_INTERVAL_MS: between the two bounds, either answer is right.
  if (silentMs > failsAfterMs) {
    // Even an untouched budget moves on: a crashed request may have left a grant of it on a job.
    expect(after.budget).toEqual({ epoch: before.budget.epoch + 1, count: 0, lastProgress: 0, totalSeconds: 0 });
    if (before.budget.count > 0) model.recoveries++;
  } else if (silentMs <= failsAfterMs - HEALTH_WRITE_INTERVAL_MS) {
    expect(after.budget).toEqual(before.budget);
  }
}

async function extend(m: TestManager, model: Model, s: Extract<Step, { kind: 'extend' }>): Promise<void> {
  const { jobId, workerId } = slotAt(s.slot);
  const key = `${jobId}/${workerId}`;
  const progress = (model.progress.get(key) ?? 0) + (s.showsProgress ? 0.001 : 0);
  model.progress.set(key, progress);
  const answer = await requestExtension(m.deps, { workerId, token: model.tokens.get(key) ?? '', currentProgress: progress });
  if (!answer.granted) return;
  const epochKey = `${workerId}#${(await workerOf(m, workerId)).budget.epoch}`;
  model.granted.set(epochKey, (model.granted.get(epochKey) ?? 0) + answer.extensionSeconds);
}

async function apply(m: TestManager, model: Model, s: Step): Promise<void> {
  if (s.kind === 'advance') m.clock.set(m.clock.now() + secondsToMs(s.seconds));
  if (s.kind === 'report') await report(m, model, s);
  if (s.kind === 'extend') await extend(m, model, s);
  if (s.kind === 'busy') {
    for (let i = 0; i < s.times; i++) {
      m.clock.set(m.clock.now() + secondsToMs(s.everySeconds));
      await report(m, model, { kind: 'report', slot: s.slot, advances: true, first: s.first });
    }
  }
}

/** One budget per worker per job: what a job counts for a worker is at most 58.125 s, and from its current budget. */
async function checkBudgetBound(m: TestManager, model: Model): Promise<void> {
  for (const total of model.granted.values()) expect(total).toBeLessThanOrEqual(CAP_SECONDS);
  const workers = new Map<string, WorkerHealth>(await Promise.all(WORKERS.map(async (id) => [id, await workerOf(m, id)] as const)));
  for (const spec of JOBS) {
    const job = await m.getJob(spec.jobId);
    expect(job.status).toBe('RUNNING');
    for (const grant of decodeGrants(job.tracking.workerGrants).values()) {
      const worker = workers.get(spec.workers[grant.workerIndex] ?? '');
      expect(worker).toBeDefined();
      expect(grant.seconds).toBeLessThanOrEqual(CAP_SECONDS);
      expect(grant.epoch).toBe(worker?.budget.epoch);
      expect(grant.seconds).toBeLessThanOrEqual(worker?.budget.totalSeconds ?? 0);
    }
    expect(job.tracking.totalExtensionsGranted).toBeLessThanOrEqual(spec.workers.length * CAP_SECONDS);
  }
}

describe('AD-26: one budget per worker per job across silent failures and recoveries (real use cases on dynalite)', () => {
  const harness = useTestManager();

  it('after every step: no worker adds more than 58.125 s to a job; a report recovers a worker exactly when it had failed', { timeout: 180_000 }, async () => {
    let recoveries = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        const m = await testManager(harness.dynamo, { store: (doc, tableName) => new ReportOrderStore(doc, tableName) });
        const model: Model = { tokens: new Map(), progress: new Map(), lastCallAt: new Map(), granted: new Map(), recoveries: 0 };
        for (const { jobId, workers } of JOBS) {
          const { tokens } = await submit(m, {
            jobId,
            timeoutSeconds: 1_000_000,
            stuckThresholdSeconds: 1_000_000,
            workflows: workers.map((workerId) => ({ workflowId: wf(workerId), workerId })),
          });
          for (const workerId of workers) model.tokens.set(`${jobId}/${workerId}`, tokens[wf(workerId)] ?? '');
        }
        // Every worker's first call at T0 writes its item.
        for (const { jobId, workerId } of SLOTS) {
          await reportProgress(m.deps, { jobId, workflowId: wf(workerId), workerId, token: model.tokens.get(`${jobId}/${workerId}`) ?? '' });
          model.lastCallAt.set(workerId, T0);
        }
        for (const s of steps) {
          await apply(m, model, s);
          await checkBudgetBound(m, model);
        }
        recoveries += model.recoveries;
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 25) },
    );
    // The recovery path was taken, not only generated.
    expect(recoveries).toBeGreaterThan(0);
  });
});
