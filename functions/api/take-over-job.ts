import { takeOverJob } from '../../shared/app/take-over-job.js';
import { emptyBody, jobPath } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: jobPath, body: emptyBody }).handle(async ({ path, event }) =>
  ok(await takeOverJob(await managerFor(regionOfHttpEvent(event)), path.jobId, callerTenant(event))),
);
