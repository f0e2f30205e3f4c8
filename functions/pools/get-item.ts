import { getItem } from '../../shared/app/pools/get-pool.js';
import { itemPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: itemPath }).handle(async ({ path, event }) =>
  ok(await getItem(await managerFor(regionOfHttpEvent(event)), path.poolId, path.itemId, callerTenant(event))),
);
