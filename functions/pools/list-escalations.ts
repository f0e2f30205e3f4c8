import { listEscalations } from '../../shared/app/pools/escalations.js';
import { escalationsQuery } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({}).handle(async ({ event }) => {
  const query = escalationsQuery.parse(event.queryStringParameters ?? {});
  return ok(await listEscalations(await managerFor(regionOfHttpEvent(event)), query.poolId, query.cursor, callerTenant(event)));
});
