import { cancelJob } from '../../shared/app/cancel-job.js';
import { cancelBody, jobPath } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: jobPath, body: cancelBody }).handle(async ({ path, body, event }) =>
  ok(await cancelJob(await managerFor(regionOfHttpEvent(event)), path.jobId, body.reason, callerTenant(event))),
);
