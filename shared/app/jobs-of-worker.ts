import { belongsTo, isTerminal, WorkflowMark, type Job } from '../domain/job.js';
import type { ManagerDeps } from './manager-deps.js';

/** A workflow of the worker's known without the index (the one a request's token names). */
export type WorkflowOfWorker = { jobId: string; workflowId: string; index: number };

/**
 * Runs `apply` once per RUNNING job where the worker has an active workflow, with the job as just
 * read and the worker's active workflow indexes in it; returns how many jobs it ran for, and how
 * many grant records the index still lists for the worker (grants not yet retired). `known`
 * adds workflows the `byWorker` index may not list yet (on AWS it lags the table). Workflows
 * the `byWorker` index still lists but that are over (an outcome whose index write was lost, a job
 * that finished, an earlier job with the same id) leave the index here, once: a worker's request costs O(its active jobs).
 */
export async function forEachJobOfWorker(
  deps: ManagerDeps,
  workerId: string,
  apply: (job: Job, workerIndexes: number[]) => Promise<unknown>,
  known: readonly WorkflowOfWorker[] = [],
): Promise<{ jobs: number; listedGrants: number }> {
  const byJob = new Map<string, WorkflowOfWorker[]>();
  const work = await deps.jobs.findWorkOfWorker(workerId);
  for (const workflow of [...work.workflows, ...known]) {
    const listed = byJob.get(workflow.jobId) ?? [];
    if (!listed.some((w) => w.workflowId === workflow.workflowId)) byJob.set(workflow.jobId, [...listed, workflow]);
  }
  let applied = 0;
  for (const [jobId, workflows] of byJob) {
    // Absent: the workflow items exist but the job item was never written (a submit that crashed midway).
    const job = await deps.jobs.getJob(jobId);
    if (!job) continue;
    const earlier = await leftByEarlierJob(deps, job, workflows);
    const over = workflows.filter((w) => isTerminal(job.status) || job.workflowMarks[w.index] !== WorkflowMark.active || earlier.has(w.workflowId));
    // An earlier job's item leaves only while it is still that job's: a resend may have just written the new one.
    if (over.length > 0) await deps.jobs.leaveWorkerIndex(over.map((w) => ({ ...w, ...(earlier.get(w.workflowId) ?? {}) })));
    if (over.length === workflows.length) continue;
    await apply(job, workflows.filter((w) => !over.includes(w)).map((w) => w.index));
    applied++;
  }
  return { jobs: applied, listedGrants: work.grants.length };
}

/**
 * Workflows the index lists under this job id that belong to an earlier job with the same id (its
 * item expired, the id was submitted again), with that job's incarnation: the index does not carry
 * it, so the workflow items say. Such a workflow is not the worker's work in the job now stored.
 */
async function leftByEarlierJob(deps: ManagerDeps, job: Job, workflows: ReadonlyArray<{ workflowId: string }>): Promise<Map<string, { incarnation?: string }>> {
  const earlier = new Map<string, { incarnation?: string }>();
  if (isTerminal(job.status)) return earlier;
  const items = await Promise.all(workflows.map((w) => deps.jobs.getWorkflow(job.jobId, w.workflowId)));
  workflows.forEach((w, i) => {
    const item = items[i];
    if (item === undefined) earlier.set(w.workflowId, {});
    else if (!belongsTo(item, job)) earlier.set(w.workflowId, item.incarnation === undefined ? {} : { incarnation: item.incarnation });
  });
  return earlier;
}
