import { listJobs } from '../../shared/app/history/list-jobs.js';
import { listJobsQuery } from '../../shared/contract/history-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ query: listJobsQuery }).handle(async ({ query, event }) =>
  ok(await listJobs(await managerFor(regionOfHttpEvent(event)), query, callerTenant(event))),
);
