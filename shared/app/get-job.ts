import { CursorNotIssuedError, JobNotFoundError } from '../domain/errors.js';
import { belongsTo } from '../domain/job.js';
import { DEFAULT_TENANT, ownedBy, scopedWorkerId } from '../domain/tenant.js';
import { jobView, jobViewPage } from './job-views.js';
import type { ManagerDeps } from './manager-deps.js';

/**
 * `GET /jobs/{jobId}?cursor=` by the job's tenant: another tenant's job is not found (see `own-job.ts`).
 * The cursor is the previous answer's `nextCursor`: the position of the last workflow it listed.
 */
export async function getJob(deps: ManagerDeps, jobId: string, tenant: string = DEFAULT_TENANT, cursor?: string) {
  const stored = await deps.jobs.getJobWithWorkflows(jobId);
  if (!stored || !ownedBy(stored.job, tenant)) throw new JobNotFoundError(jobId);
  const workflows = stored.workflows.filter((w) => belongsTo(w, stored.job));
  const afterIndex = cursor === undefined ? undefined : Number(cursor);
  // A nextCursor is the position of a listed workflow with more after it: any other is not one this API issued.
  if (afterIndex !== undefined && !(Number.isInteger(afterIndex) && afterIndex >= 0 && workflows.some((w) => w.index > afterIndex))) {
    throw new CursorNotIssuedError();
  }
  // Only the page's workers' grant records (named by scoped id): a large job's pages would each read every one of them.
  const pageWorkers = jobViewPage(workflows, afterIndex).page.map((w) => scopedWorkerId(w.tenant, w.workerId));
  const grants = await deps.jobs.findGrantRecordsOf(jobId, pageWorkers, stored.job.incarnation);
  return jobView(stored.job, workflows, deps.clock.now(), grants, afterIndex);
}
