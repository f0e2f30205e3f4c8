import { checkpointBody, itemPath } from '../../shared/contract/pool-requests.js';
import { poolAgentRoute } from '../../shared/http/pool-agent-route.js';

export const handler = poolAgentRoute({ path: itemPath, body: checkpointBody }, (_path, body) => ({
  type: 'checkpoint',
  state: body.state,
  ...(body.progress !== undefined ? { progress: body.progress } : {}),
}));
