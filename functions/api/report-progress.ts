import { reportProgress } from '../../shared/app/report-progress.js';
import { progressBody, workflowPath } from '../../shared/contract/manager-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { workerToken } from '../../shared/http/worker-token.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: workflowPath, body: progressBody }).handle(async ({ path, body, headers, event }) =>
  ok(await reportProgress(await managerFor(regionOfHttpEvent(event)), { ...path, ...body, token: workerToken(headers) })),
);
