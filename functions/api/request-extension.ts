import { requestExtension } from '../../shared/app/request-extension.js';
import { extensionBody, workerPath } from '../../shared/contract/manager-requests.js';
import { httpRoute, ok } from '../../shared/http/http-handler.js';
import { workerToken } from '../../shared/http/worker-token.js';
import { managerFor, regionOfHttpEvent } from '../../shared/wiring/manager-resolver.js';

export const handler = httpRoute({ path: workerPath, body: extensionBody }).handle(async ({ path, body, headers, event }) =>
  ok(
    await requestExtension(await managerFor(regionOfHttpEvent(event)), {
      workerId: path.workerId,
      currentProgress: body.currentProgress,
      ...(body.estimatedCompletion !== undefined ? { estimatedCompletion: body.estimatedCompletion } : {}),
      ...(body.activeWorkflowCount !== undefined ? { activeWorkflowCount: body.activeWorkflowCount } : {}),
      ...(body.requestId !== undefined ? { requestId: body.requestId } : {}),
      token: workerToken(headers),
    }),
  ),
);
