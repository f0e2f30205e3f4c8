import { collectionStatus } from '../../shared/app/pools/collect-checkpoints.js';
import { collectionPath, collectionQuery } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: collectionPath }).handle(async ({ path, event }) => {
  const { cursor } = collectionQuery.parse(event.queryStringParameters ?? {});
  return ok(await collectionStatus(await managerFor(regionOfHttpEvent(event)), path.poolId, path.collectionId, callerTenant(event), cursor));
});
