import { getJob } from '../../shared/app/get-job.js';
import { jobPath, jobQuery } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: jobPath, query: jobQuery }).handle(async ({ path, query, event }) =>
  ok(await getJob(await managerFor(regionOfHttpEvent(event)), path.jobId, callerTenant(event), query.cursor)),
);
