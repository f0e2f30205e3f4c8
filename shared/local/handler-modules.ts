import { loadRouteHandlers } from './http-listener.js';
import { loadLambdaHandlers } from './lambda-module.js';
import { gateRoutes } from './local-gate.js';
import { managerRoutes } from './manager-routes.js';
// Declares the gate's fan-out handler (submit-from-gate), so it is loaded with the others.
import './local-region-managers.js';

/**
 * Loads every handler module the local cloud serves, before it says it is ready. Loaded lazily, each
 * module's first call paid for compiling it (under tsx, seconds on a busy machine): the first request
 * after "ready" took up to 11 s in CI, beyond a client's patience. A deployed Lambda's cold start is
 * its own; locally, ready means every handler answers at its usual speed.
 */
export const loadHandlerModules = (): Promise<unknown> =>
  Promise.all([loadLambdaHandlers(), loadRouteHandlers(gateRoutes), loadRouteHandlers(managerRoutes)]);
