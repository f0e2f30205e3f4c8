import { itemPath, terminatedBody } from '../../shared/contract/pool-requests.js';
import { poolAgentRoute } from '../../shared/http/pool-agent-route.js';

export const handler = poolAgentRoute({ path: itemPath, body: terminatedBody }, (_path, body) => ({
  type: 'terminated',
  cleanup: body.cleanup,
  ...(body.partialResult !== undefined ? { partialResult: body.partialResult } : {}),
}));
