import { latestEndAt, ownTimeoutAt } from '../domain/deadlines.js';
import type { Job } from '../domain/job.js';
import type { WorkerGrant } from '../domain/extension-ledger.js';
import { withExtensionReport } from '../domain/gate-reports.js';
import { grantOf, recordWorkerExtension } from '../domain/worker-extensions.js';
import { decideJob } from './job-state-store.js';
import { forEachJobOfWorker, type WorkflowOfWorker } from './jobs-of-worker.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { retiredGrantsOf } from './retired-grants.js';

export interface GrantToApply extends Omit<WorkerGrant, 'workerIndex'> {
  workerId: string;
  grantedAt: number;
  /** This grant's own seconds (`seconds` is its budget's total). */
  addedSeconds: number;
  /** The request showed progress of this job, the one its token names: that job's stuck clock restarts, no other's. */
  progressAdvanced: boolean;
  progressJobId: string;
  /** The workflow the request's token names, while active: extended even before the `byWorker` index lists it. */
  tokenWorkflow?: WorkflowOfWorker;
  /** What the worker said when it asked (AD-26), recorded beside each job it extends. */
  estimatedCompletion?: string;
  activeWorkflowCount?: number;
}

/**
 * Seed 001 §10.4.7-8: applies one grant to every RUNNING job where the worker is active: first the
 * (job, worker) grant record, which fixes the worker's index in the job, then the job, which a
 * gate-coordinated job reports at once. Idempotent by grant. Returns the jobs that hold it.
 */
export async function applyGrantToJobs(deps: ManagerDeps, grant: GrantToApply): Promise<Array<{ jobId: string; workerIndex: number }>> {
  const { workerId, epoch, count, seconds, addedSeconds, grantedAt, progressAdvanced, progressJobId, estimatedCompletion, activeWorkflowCount, tokenWorkflow } = grant;
  const applied: Array<{ jobId: string; workerIndex: number }> = [];
  await forEachJobOfWorker(deps, workerId, async (job, indexes) => {
    const workerIndex = await deps.jobs.recordGrant({
      jobId: job.jobId,
      ...(job.incarnation !== undefined ? { incarnation: job.incarnation } : {}),
      workerId,
      workerIndex: Math.min(...indexes),
      epoch,
      count,
      seconds,
      grantedAt,
      ...(estimatedCompletion !== undefined ? { estimatedCompletion } : {}),
      ...(activeWorkflowCount !== undefined ? { activeWorkflowCount } : {}),
      retainUntil: latestEndAt(job, job.workflowMarks.length, deps.policy),
    });
    // A grant that no longer counts must not make a job past its real deadline look alive: this
    // worker's own from a budget before this one, and another worker's that failed or reset since.
    // Only past its own timeout can such a grant be what keeps the job alive. Whether it is past is
    // judged at the instant the job is decided at, read after the reads and the write above (the
    // request's own reading, taken before them, may be before the own timeout while the decision's
    // is past it), and again after a lost race, on the job as reloaded.
    let decidedAt = deps.clock.now();
    const retiredAt = async (current: Job): Promise<Array<{ workerIndex: number; epochBefore: number }>> => {
      if (decidedAt < ownTimeoutAt(current.tracking)) return [];
      const othersHoldGrants = current.tracking.workersWithExtensions > (grantOf(current, workerIndex) === undefined ? 0 : 1);
      return [{ workerIndex, epochBefore: epoch }, ...(othersHoldGrants ? await retiredGrantsOf(deps, current) : [])];
    };
    let retired = await retiredAt(job);
    const { decision } = await decideJob(
      deps,
      job.jobId,
      (current) => {
        const ctx = { ...decisionContext(deps), now: decidedAt };
        // A job adds the grants of this budget it was given, not the ones made before the worker joined it.
        const previous = grantOf(current, workerIndex);
        const onThisJob = previous !== undefined && previous.epoch === epoch ? previous.seconds : 0;
        const ledgerEntry = { workerIndex, epoch, count, seconds: Math.min(seconds, onThisJob + addedSeconds) };
        const advanced = progressAdvanced && job.jobId === progressJobId;
        return withExtensionReport(recordWorkerExtension(current, indexes, ledgerEntry, advanced, ctx, retired), ctx);
      },
      job,
      async (jobId) => {
        const current = await deps.jobs.getJob(jobId);
        if (!current) return current;
        // Read again on a retry: the report it sends must not be dated before a write that overtook it.
        decidedAt = deps.clock.now();
        retired = await retiredAt(current);
        return current;
      },
    );
    // Only a job that holds the grant is one it extended: a job that ended, or passed its deadline,
    // while the request was decided refuses it, and the worker must not be told of time no job gives.
    if (decision.ignored === undefined || decision.ignored === 'grant_already_applied') applied.push({ jobId: job.jobId, workerIndex });
  }, tokenWorkflow ? [tokenWorkflow] : []);
  return applied;
}
