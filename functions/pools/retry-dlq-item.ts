import { retryDeadLetter } from '../../shared/app/pools/dead-letters.js';
import { dlqRetryBody, itemPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: itemPath, body: dlqRetryBody }).handle(async ({ path, body, event }) =>
  ok(await retryDeadLetter(await managerFor(regionOfHttpEvent(event)), path.poolId, path.itemId, body.agentTimeoutSecs, callerTenant(event))),
);
