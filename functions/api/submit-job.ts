import { submitJob } from '../../shared/app/submit-job.js';
import { submitJobBody } from '../../shared/contract/manager-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { created, httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ body: submitJobBody }).handle(async ({ body, event }) => {
  const result = await submitJob(await managerFor(regionOfHttpEvent(event)), { ...body, tenant: callerTenant(event) });
  return result.created ? created(result.view) : ok(result.view);
});
