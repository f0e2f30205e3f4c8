import { cancelGateJob } from '../../shared/app/gate/cancel-gate-job.js';
import { cancelBody, jobPath } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = httpRoute({ path: jobPath, body: cancelBody }).handle(async ({ path, body, event }) =>
  ok(await cancelGateJob(await gate(), path.jobId, body.reason, callerTenant(event))),
);
