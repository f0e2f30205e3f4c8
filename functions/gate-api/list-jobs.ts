import { listJobs } from '../../shared/app/history/list-jobs.js';
import { listJobsQuery } from '../../shared/contract/history-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = httpRoute({ query: listJobsQuery }).handle(async ({ query, event }) =>
  ok(await listJobs(await gate(), query, callerTenant(event))),
);
