import { answerEscalation } from '../../shared/app/pools/escalations.js';
import { answerBody, escalationPath } from '../../shared/contract/pool-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

export const handler = httpRoute({ path: escalationPath, body: answerBody }).handle(async ({ path, body, event }) =>
  ok(await answerEscalation(await managerFor(regionOfHttpEvent(event)), path.escalationId, body, callerTenant(event))),
);
