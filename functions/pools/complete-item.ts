import { completeItemBody, itemPath } from '../../shared/contract/pool-requests.js';
import { poolAgentRoute } from '../../shared/http/pool-agent-route.js';

export const handler = poolAgentRoute({ path: itemPath, body: completeItemBody }, (_path, body) => ({
  type: 'complete',
  outcome: body.outcome,
  ...(body.result !== undefined ? { result: body.result } : {}),
}));
