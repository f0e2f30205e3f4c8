import { JobNotFoundError } from '../domain/errors.js';
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
  return jobView(stored.job, workflows, deps.clock.now(), stored.grants, cursor === undefined ? undefined : Number(cursor));
}
