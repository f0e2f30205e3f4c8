import { cancelPool } from '../../shared/app/pools/cancel-pool.js';
import { cancelPoolBody, poolPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: poolPath, body: cancelPoolBody }).handle(async ({ path, body, event }) =>
  ok(await cancelPool(await managerFor(regionOfHttpEvent(event)), path.poolId, body.reason, callerTenant(event))),
);
