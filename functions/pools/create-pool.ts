import { createPool } from '../../shared/app/pools/create-pool.js';
import { parsePoolSubmission } from '../../shared/contract/parse-pool-submission.js';
import { created, httpRoute, ok } from '../../shared/http/http-handler.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';
import { callerTenant } from '../../shared/http/caller-tenant.js';

const bodyText = (event: { body?: string; isBase64Encoded: boolean }) =>
  event.isBase64Encoded && event.body ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;

// JSON or spec 113's YAML, so the body is parsed here rather than by the route's JSON schema.
export const handler = httpRoute({}).handle(async ({ headers, event }) => {
  const submission = parsePoolSubmission(bodyText(event), headers['content-type']);
  const result = await createPool(await managerFor(regionOfHttpEvent(event)), submission, callerTenant(event));
  return result.created ? created(result.view) : ok(result.view);
});
