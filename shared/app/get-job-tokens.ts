import { id } from '../contract/manager-requests.js';
import { CursorNotIssuedError } from '../domain/errors.js';
import { belongsTo } from '../domain/job.js';
import { DEFAULT_TENANT } from '../domain/tenant.js';
import { tokenPage, TOKEN_PAGE_SIZE, type TokenPage } from './job-views.js';
import type { ManagerDeps } from './manager-deps.js';
import { ownJob } from './own-job.js';

/**
 * `GET /jobs/{jobId}/tokens?cursor=`: the worker tokens of a large job, a page at a time, in workflow-id
 * order. The cursor is the `nextCursor` of the previous answer. Only the job's tenant gets
 * them: a token lets its holder act as the job's worker.
 */
export async function getJobTokens(
  deps: ManagerDeps,
  jobId: string,
  cursor: string | undefined,
  tenant: string = DEFAULT_TENANT,
): Promise<{ jobId: string } & TokenPage> {
  if (cursor !== undefined && !id.safeParse(cursor).success) throw new CursorNotIssuedError();
  const job = ownJob(await deps.jobs.getJob(jobId), tenant, jobId);
  // A nextCursor names a workflow item of this job id (a leftover of an earlier job's included).
  if (cursor !== undefined && !(await deps.jobs.getWorkflow(jobId, cursor))) throw new CursorNotIssuedError();
  const { workflows, more } = await deps.jobs.getWorkflowsAfter(jobId, cursor, TOKEN_PAGE_SIZE);
  // Leftovers of an expired job with this id are skipped; the cursor still moves past them.
  const own = workflows.filter((w) => belongsTo(w, job));
  const page = tokenPage(job, own, deps.tokens, more);
  const last = workflows.at(-1);
  return { jobId, ...page, ...(more && last ? { nextCursor: last.workflowId } : {}) };
}
