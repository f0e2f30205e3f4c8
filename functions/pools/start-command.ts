import { commandPath, commandStartBody } from '../../shared/contract/pool-requests.js';
import { poolAgentRoute } from '../../shared/http/pool-agent-route.js';

export const handler = poolAgentRoute({ path: commandPath, body: commandStartBody }, (path, body) => ({
  type: 'command_start',
  index: Number(path.index),
  commandType: body.type,
}));
