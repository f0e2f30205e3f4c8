import { heartbeatBody, itemPath } from '../../shared/contract/pool-requests.js';
import { poolAgentRoute } from '../../shared/http/pool-agent-route.js';

export const handler = poolAgentRoute({ path: itemPath, body: heartbeatBody }, () => ({ type: 'heartbeat' }));
