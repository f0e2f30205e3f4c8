import { getJobTokens } from '../../shared/app/get-job-tokens.js';
import { jobPath, tokensQuery } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: jobPath, query: tokensQuery }).handle(async ({ path, query, event }) =>
  ok(await getJobTokens(await managerFor(regionOfHttpEvent(event)), path.jobId, query.cursor, callerTenant(event))),
);
