import { dispatchByRouteKey } from '../../shared/http/route-dispatch.js';
import { poolAgentRoutes } from './routes.js';

/** The agent routes of the pool API in one function (token-authenticated, hot path). */
export const handler = dispatchByRouteKey(poolAgentRoutes);
