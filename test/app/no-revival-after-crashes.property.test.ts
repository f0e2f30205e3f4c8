import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { retiredGrantsOf } from '../../shared/app/retired-grants.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { decodeGrants } from '../../shared/domain/extension-ledger.js';
import { isTerminal } from '../../shared/domain/job.js';
import { defaultExtensionPolicy } from '../../shared/domain/policy.js';
import { secondsToMs } from '../../shared/domain/time.js';
import { liveEffectiveDeadline } from '../../shared/domain/worker-extensions.js';
import { VigilError } from '../../shared/domain/errors.js';
import { StoreThatFailsOneWorkerWrite } from './support/store-that-fails-one-worker-write.js';
import { submit, testManager, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * AD-26 against a worker in several jobs that crashes mid-request, falls silent until it is failed,
 * comes back, finishes its parts (a fresh budget when idle) and asks again, with the jobs' wake-ups
 * firing when due, through the real use cases on dynalite. After every step: no worker adds more
 * than one budget to a job, and a RUNNING job whose deadline (counting only the grants that still
 * count) has passed never gets a later one: it is owed its timeout, and no recovery, reset or grant
 * takes that back.
 */

const CAP_SECONDS = budgetCapSeconds(defaultExtensionPolicy);
const JOBS = [
  { jobId: 'job-1', timeoutSeconds: 90, workflows: [['wf-1', 'worker-a'], ['wf-2', 'worker-b']] },
  { jobId: 'job-2', timeoutSeconds: 150, workflows: [['wf-1', 'worker-a']] },
  { jobId: 'job-3', timeoutSeconds: 240, workflows: [['wf-1', 'worker-a'], ['wf-2', 'worker-b']] },
] as const;
const SLOTS = JOBS.flatMap(({ jobId, workflows }) => workflows.map(([workflowId, workerId]) => ({ jobId, workflowId, workerId })));

type Step =
  | { kind: 'advance'; seconds: number }
  | { kind: 'extend'; slot: number; rise: boolean; crash: boolean }
  | { kind: 'report'; slot: number; rise: boolean }
  | { kind: 'complete'; slot: number }
  | { kind: 'fire' };

const slot = fc.integer({ min: 0, max: SLOTS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 80 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('extend' as const), slot, rise: fc.boolean(), crash: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('report' as const), slot, rise: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), slot }) },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: 'fire' }) },
);

/** A crash is an error too: the caller's retry (a later step) is what follows it. */
async function tolerate(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof VigilError) && !(error instanceof Error && /died/.test(error.message))) throw error;
  }
}

interface Model {
  tokens: Map<string, string>;
  progress: Map<string, number>;
}

const keyOf = (s: { jobId: string; workflowId: string }) => `${s.jobId}/${s.workflowId}`;

function slotAt(index: number) {
  const found = SLOTS[index];
  if (!found) throw new Error(`no slot ${index}`);
  return found;
}

async function apply(m: TestManager, model: Model, s: Step): Promise<void> {
  if (s.kind === 'advance') m.clock.set(m.clock.now() + secondsToMs(s.seconds));
  if (s.kind === 'fire') {
    for (const { jobId } of JOBS) {
      const timer = m.timers.current(jobId);
      if (timer && timer.dueAt <= m.clock.now()) await fireJobTimer(m.deps, timer);
    }
  }
  if (s.kind === 'extend' || s.kind === 'report' || s.kind === 'complete') {
    const target = slotAt(s.slot);
    const key = keyOf(target);
    const token = model.tokens.get(key) ?? '';
    const progress = (model.progress.get(key) ?? 0) + (s.kind !== 'complete' && s.rise ? 0.01 : 0);
    model.progress.set(key, progress);
    if (s.kind === 'extend') {
      (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = s.crash;
      await tolerate(requestExtension(m.deps, { workerId: target.workerId, token, currentProgress: progress }));
      (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = false;
    }
    if (s.kind === 'report') await tolerate(reportProgress(m.deps, { ...target, token, progress }));
    if (s.kind === 'complete') await tolerate(completeWorkflow(m.deps, { ...target, token, outcome: 'completed' }));
  }
}

/** Each RUNNING job's deadline counting only the grants that still count. */
async function liveDeadlines(m: TestManager): Promise<Map<string, number>> {
  const deadlines = new Map<string, number>();
  for (const { jobId } of JOBS) {
    const job = await m.getJob(jobId);
    if (!isTerminal(job.status)) deadlines.set(jobId, liveEffectiveDeadline(job, await retiredGrantsOf(m.deps, job)));
  }
  return deadlines;
}

async function checkOneBudgetPerWorker(m: TestManager): Promise<void> {
  for (const spec of JOBS) {
    const job = await m.getJob(spec.jobId);
    for (const grant of decodeGrants(job.tracking.workerGrants).values()) expect(grant.seconds).toBeLessThanOrEqual(CAP_SECONDS);
  }
}

describe('AD-26: crashed, silent, recovering and finishing workers never revive a job owed its timeout (real use cases on dynalite)', () => {
  const harness = useTestManager();

  it('after every step: one budget per worker per job, and a passed deadline never moves later', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), async (steps) => {
        const m = await testManager(harness.dynamo, { store: (doc, tableName) => new StoreThatFailsOneWorkerWrite(doc, tableName) });
        const model: Model = { tokens: new Map(), progress: new Map() };
        for (const spec of JOBS) {
          const workflows = spec.workflows.map(([workflowId, workerId]) => ({ workflowId, workerId }));
          const { tokens } = await submit(m, { jobId: spec.jobId, timeoutSeconds: spec.timeoutSeconds, stuckThresholdSeconds: 100_000, workflows });
          for (const [workflowId] of spec.workflows) model.tokens.set(`${spec.jobId}/${workflowId}`, tokens[workflowId] ?? '');
        }
        for (const s of steps) {
          const now = m.clock.now();
          const before = await liveDeadlines(m);
          await apply(m, model, s);
          await checkOneBudgetPerWorker(m);
          for (const [jobId, after] of await liveDeadlines(m)) {
            const was = before.get(jobId);
            if (was !== undefined && now >= was) expect(after, `${jobId}: its deadline had passed at ${was - now} ms`).toBeLessThanOrEqual(was);
          }
        }
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 30) },
    );
  });
});
