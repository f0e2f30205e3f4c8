import { submitJob } from '../../shared/app/submit-job.js';
import { submitJobBody } from '../../shared/contract/manager-requests.js';
import { created, httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ body: submitJobBody }).handle(async ({ body, event }) => {
  const result = await submitJob(await managerFor(regionOfHttpEvent(event)), body);
  return result.created ? created(result.view) : ok(result.view);
});
