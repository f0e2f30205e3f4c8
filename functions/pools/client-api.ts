import { dispatchByRouteKey } from '../../shared/http/route-dispatch.js';
import { poolClientRoutes } from './routes.js';

/** The client routes of the pool API in one function (IAM-authorized on AWS). */
export const handler = dispatchByRouteKey(poolClientRoutes);
