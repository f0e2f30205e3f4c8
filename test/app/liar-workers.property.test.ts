import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { budgetCapSeconds } from '../../shared/domain/extension-budget.js';
import { decodeGrants } from '../../shared/domain/extension-ledger.js';
import { SubmissionConflictError, VigilError } from '../../shared/domain/errors.js';
import { WorkflowMark } from '../../shared/domain/job.js';
import { defaultExtensionPolicy } from '../../shared/domain/policy.js';
import { secondsToMs } from '../../shared/domain/time.js';
import { submit, testManager, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * The promise against lying, repeated, parallel and stale workers: random sequences of extension
 * requests (in parallel bursts, with any of the worker's tokens, any progress), progress reports,
 * outcomes (repeated, contradicting), failure reports, resubmissions and clock moves, through the
 * real use cases on dynalite. After every step: no worker adds more than one budget to a job, a
 * recorded outcome never changes, and a resubmission is answered 200 only for the same body.
 */

const CAP_SECONDS = budgetCapSeconds(defaultExtensionPolicy);
const LONG = 10_000_000;
const JOBS = [
  { jobId: 'job-1', workflows: [['wf-1', 'worker-a'], ['wf-2', 'worker-b'], ['wf-3', 'worker-a']] },
  { jobId: 'job-2', workflows: [['wf-1', 'worker-a']] },
  { jobId: 'job-3', workflows: [['wf-1', 'worker-b'], ['wf-2', 'worker-a']] },
] as const;
const SLOTS = JOBS.flatMap(({ jobId, workflows }) => workflows.map(([workflowId, workerId]) => ({ jobId, workflowId, workerId })));
const bodyOf = (spec: (typeof JOBS)[number]) => ({
  jobId: spec.jobId,
  timeoutSeconds: LONG,
  stuckThresholdSeconds: LONG,
  workflows: spec.workflows.map(([workflowId, workerId]) => ({ workflowId, workerId })),
});

type Step =
  | { kind: 'advance'; seconds: number }
  | { kind: 'extend'; slots: number[]; progress: number[] }
  | { kind: 'progress'; slot: number; progress: number }
  | { kind: 'complete'; slot: number; outcome: 'completed' | 'failed' }
  | { kind: 'fail'; worker: 'worker-a' | 'worker-b' }
  | { kind: 'resubmit'; job: number; timeoutSeconds: number };

const slot = fc.integer({ min: 0, max: SLOTS.length - 1 });
const progress = fc.integer({ min: 0, max: 20 }).map((n) => n / 20);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), seconds: fc.integer({ min: 1, max: 150 }) }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('extend' as const), slots: fc.array(slot, { minLength: 1, maxLength: 3 }), progress: fc.array(progress, { minLength: 3, maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('progress' as const), slot, progress }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('complete' as const), slot, outcome: fc.constantFrom('completed' as const, 'failed' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('fail' as const), worker: fc.constantFrom('worker-a' as const, 'worker-b' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('resubmit' as const), job: fc.integer({ min: 0, max: JOBS.length - 1 }), timeoutSeconds: fc.constantFrom(LONG, LONG - 1, 0.0001, 0.0002) }) },
);

/** Refusals are answers too: a liar's call may be refused, never break the promise. */
async function tolerate(call: Promise<unknown>): Promise<void> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof VigilError)) throw error;
  }
}

interface Model {
  tokens: Map<string, string>;
  /** Outcome marks once recorded, per job. */
  marks: Map<string, string>;
}

const keyOf = (s: { jobId: string; workflowId: string }) => `${s.jobId}/${s.workflowId}`;

async function apply(m: TestManager, model: Model, s: Step): Promise<void> {
  if (s.kind === 'advance') m.clock.set(m.clock.now() + secondsToMs(s.seconds));
  if (s.kind === 'extend') {
    await Promise.all(
      s.slots.map((index, i) => {
        const target = SLOTS[index];
        if (!target) throw new Error(`no slot ${index}`);
        return tolerate(requestExtension(m.deps, { workerId: target.workerId, token: model.tokens.get(keyOf(target)) ?? '', currentProgress: s.progress[i] ?? 0 }));
      }),
    );
  }
  if (s.kind === 'progress') {
    const target = SLOTS[s.slot];
    if (!target) throw new Error(`no slot ${s.slot}`);
    await tolerate(reportProgress(m.deps, { ...target, token: model.tokens.get(keyOf(target)) ?? '', progress: s.progress }));
  }
  if (s.kind === 'complete') {
    const target = SLOTS[s.slot];
    if (!target) throw new Error(`no slot ${s.slot}`);
    await tolerate(completeWorkflow(m.deps, { ...target, token: model.tokens.get(keyOf(target)) ?? '', outcome: s.outcome }));
  }
  if (s.kind === 'fail') await reportWorkerFailure(m.deps, s.worker);
  if (s.kind === 'resubmit') {
    const spec = JOBS[s.job];
    if (!spec) throw new Error(`no job ${s.job}`);
    const body = { ...bodyOf(spec), timeoutSeconds: s.timeoutSeconds };
    const attempt = submitJob(m.deps, body);
    if (s.timeoutSeconds === LONG) expect((await attempt).created).toBe(false);
    else await expect(attempt).rejects.toBeInstanceOf(SubmissionConflictError);
  }
}

async function checkPromise(m: TestManager, model: Model): Promise<void> {
  for (const spec of JOBS) {
    const job = await m.getJob(spec.jobId);
    const workers = new Set(spec.workflows.map(([, workerId]) => workerId));
    for (const grant of decodeGrants(job.tracking.workerGrants).values()) {
      expect(grant.seconds).toBeLessThanOrEqual(CAP_SECONDS);
      expect(spec.workflows[grant.workerIndex]).toBeDefined();
    }
    expect(job.tracking.totalExtensionsGranted).toBeLessThanOrEqual(workers.size * CAP_SECONDS);
    // An outcome, once recorded, is final.
    const before = model.marks.get(spec.jobId);
    if (before !== undefined) {
      [...before].forEach((mark, index) => {
        if (mark !== WorkflowMark.active) expect(job.workflowMarks[index]).toBe(mark);
      });
    }
    model.marks.set(spec.jobId, job.workflowMarks);
  }
}

type GrantsByJob = Map<string, { marks: string; grants: Map<number, { epoch: number; count: number; seconds: number }> }>;

async function grantsByJob(m: TestManager): Promise<GrantsByJob> {
  const all: GrantsByJob = new Map();
  for (const spec of JOBS) {
    const job = await m.getJob(spec.jobId);
    all.set(spec.jobId, { marks: job.workflowMarks, grants: decodeGrants(job.tracking.workerGrants) });
  }
  return all;
}

/** A grant that grew on a job where its worker had no active workflow when the step began is one for finished work. */
async function checkNoGrantWhereDone(m: TestManager, before: GrantsByJob): Promise<void> {
  const after = await grantsByJob(m);
  for (const spec of JOBS) {
    const was = before.get(spec.jobId);
    const now = after.get(spec.jobId);
    if (!was || !now) continue;
    for (const [index, grant] of now.grants) {
      const old = was.grants.get(index);
      const grew = !old || grant.epoch !== old.epoch || grant.count !== old.count;
      if (!grew) continue;
      const workerId = spec.workflows[index]?.[1];
      const active = spec.workflows.some(([, w], i) => w === workerId && was.marks[i] === WorkflowMark.active);
      expect(active, `${spec.jobId}: ${workerId} granted with no active workflow`).toBe(true);
    }
  }
}

describe('liar workers: parallel, repeated, stale and contradicting calls keep the promise (real use cases on dynalite)', () => {
  const harness = useTestManager();

  it('after every step: one budget per worker per job at most, final outcomes stay final, resubmission 200 only for the same body', { timeout: 300_000 }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 30 }), async (steps) => {
        const m = await testManager(harness.dynamo);
        const model: Model = { tokens: new Map(), marks: new Map() };
        for (const spec of JOBS) {
          const { tokens } = await submit(m, bodyOf(spec));
          for (const [workflowId] of spec.workflows) model.tokens.set(`${spec.jobId}/${workflowId}`, tokens[workflowId] ?? '');
        }
        for (const s of steps) {
          const before = await grantsByJob(m);
          await apply(m, model, s);
          await checkPromise(m, model);
          await checkNoGrantWhereDone(m, before);
        }
      }),
      { numRuns: Number(process.env['PROPERTY_RUNS'] ?? 20) },
    );
  });
});
