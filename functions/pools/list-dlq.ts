import { listDeadLetters } from '../../shared/app/pools/dead-letters.js';
import { dlqQuery, poolPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: poolPath }).handle(async ({ path, event }) => {
  const query = dlqQuery.parse(event.queryStringParameters ?? {});
  return ok(
    await listDeadLetters(await managerFor(regionOfHttpEvent(event)), path.poolId, {
      ...(query.limit !== undefined ? { limit: Number(query.limit) } : {}),
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    }, callerTenant(event)),
  );
});
