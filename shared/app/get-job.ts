import { CursorNotIssuedError, JobNotFoundError } from '../domain/errors.js';
import { belongsTo } from '../domain/job.js';
import { DEFAULT_TENANT, ownedBy } from '../domain/tenant.js';
import { jobView } from './job-views.js';
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
  return jobView(stored.job, workflows, deps.clock.now(), stored.grants, afterIndex);
}
