import { submitGateJob } from '../../shared/app/gate/submit-gate-job.js';
import { gateSubmitJobBody } from '../../shared/contract/gate-requests.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';
import { created, httpRoute, ok } from '../../shared/http/http-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = httpRoute({ body: gateSubmitJobBody }).handle(async ({ body, event }) => {
  const result = await submitGateJob(await gate(), body, callerTenant(event));
  return result.created ? created(result.view) : ok(result.view);
});
