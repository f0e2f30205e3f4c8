import { submitGateJob } from '../../shared/app/gate/submit-gate-job.js';
import { gateSubmitJobBody } from '../../shared/contract/gate-requests.js';
import { created, httpRoute, ok } from '../../shared/http/http-handler.js';
import { gate } from '../../shared/wiring/gate-resolver.js';

export const handler = httpRoute({ body: gateSubmitJobBody }).handle(async ({ body }) => {
  const result = await submitGateJob(await gate(), body);
  return result.created ? created(result.view) : ok(result.view);
});
