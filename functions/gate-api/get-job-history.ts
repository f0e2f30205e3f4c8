import { getGateJobHistory } from '../../shared/app/history/get-gate-job-history.js';
import { jobPath } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = httpRoute({ path: jobPath }).handle(async ({ path, event }) =>
  ok(await getGateJobHistory(await gate(), path.jobId, callerTenant(event))),
);
