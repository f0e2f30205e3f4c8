import { poolMetrics } from '../../shared/app/pools/pool-metrics.js';
import { poolPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: poolPath }).handle(async ({ path, event }) =>
  ok(await poolMetrics(await managerFor(regionOfHttpEvent(event)), path.poolId, callerTenant(event))),
);
