import { claimPoolItem } from '../../shared/app/pools/claim-item.js';
import { claimBody, poolPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, noContent, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: poolPath, body: claimBody }).handle(async ({ path, body, event }) => {
  const claimed = await claimPoolItem(await managerFor(regionOfHttpEvent(event)), path.poolId, { agentId: body.agentId, kind: body.kind ?? 'agent', ...(body.claimId !== undefined ? { claimId: body.claimId } : {}) }, callerTenant(event));
  return claimed ? ok(claimed) : noContent();
});
