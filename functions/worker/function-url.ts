import { dispatchByPath } from '../../shared/http/route-dispatch.js';
import { jobWorkerRoutes } from '../../shared/local/job-worker-routes.js';
import { poolAgentRoutes } from '../pools/routes.js';

/**
 * Every token-authenticated route (a workflow's progress, completion and extensions; an agent's
 * heartbeat, commands, checkpoints and outcome) behind one Lambda function URL, which adds no
 * per-request charge to the invocation. Client routes stay on API Gateway, signed with SigV4.
 */
export const handler = dispatchByPath(
  [...jobWorkerRoutes, ...poolAgentRoutes],
  'The worker URL serves only the routes workers and agents call with their token; send client calls to the API URL.',
);
