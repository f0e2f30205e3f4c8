import { startCollection } from '../../shared/app/pools/collect-checkpoints.js';
import { poolPath, startCollectionBody } from '../../shared/contract/pool-requests.js';
import { accepted, httpRoute } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: poolPath, body: startCollectionBody }).handle(async ({ path, body, event }) =>
  accepted(await startCollection(await managerFor(regionOfHttpEvent(event)), path.poolId, callerTenant(event), body)),
);
