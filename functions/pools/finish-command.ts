import { commandFinishBody, commandPath } from '../../shared/contract/pool-requests.js';
import { poolAgentRoute } from '../../shared/http/pool-agent-route.js';

export const handler = poolAgentRoute({ path: commandPath, body: commandFinishBody }, (path, body) => ({
  type: 'command_finish',
  index: Number(path.index),
  outcome: body.outcome,
}));
