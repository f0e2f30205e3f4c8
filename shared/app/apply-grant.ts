import { latestEndAt, ownTimeoutAt } from '../domain/deadlines.js';
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
 * gate-coordinated job reports at once. Idempotent by grant. Returns where it applied it.
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
    applied.push({ jobId: job.jobId, workerIndex });
    // Another worker's grant that no longer counts (it failed) must not make a job past its real deadline look alive.
    // Only past its own timeout can another worker's grant be what keeps it alive.
    const othersGrantsMatter = grantedAt >= ownTimeoutAt(job.tracking) && !(job.tracking.workersWithExtensions === 1 && grantOf(job, workerIndex) !== undefined);
    const retired = othersGrantsMatter ? await retiredGrantsOf(deps, job) : [];
    await decideJob(deps, job.jobId, (current) => {
      // Read again on a retry: the report it sends must not be dated before a write that overtook it.
      const ctx = decisionContext(deps);
      // A job adds the grants of this budget it was given, not the ones made before the worker joined it.
      const previous = grantOf(current, workerIndex);
      const onThisJob = previous !== undefined && previous.epoch === epoch ? previous.seconds : 0;
      const ledgerEntry = { workerIndex, epoch, count, seconds: Math.min(seconds, onThisJob + addedSeconds) };
      const advanced = progressAdvanced && job.jobId === progressJobId;
      return withExtensionReport(recordWorkerExtension(current, indexes, ledgerEntry, advanced, ctx, retired), ctx);
    }, job);
  }, tokenWorkflow ? [tokenWorkflow] : []);
  return applied;
}
