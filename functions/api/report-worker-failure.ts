import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { emptyBody, workerPath } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: workerPath, body: emptyBody }).handle(async ({ path, event }) =>
  ok(await reportWorkerFailure(await managerFor(regionOfHttpEvent(event)), path.workerId, callerTenant(event))),
);
