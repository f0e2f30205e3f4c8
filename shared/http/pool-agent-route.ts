import type * as z from '../validation/zod.js';
import { agentCall } from '../app/pools/agent-call.js';
import type { AgentCall } from '../domain/pools/agent-calls.js';
import { managerFor, regionOfHttpEvent } from '../wiring/manager-resolver.js';
import { httpRoute, ok } from './http-handler.js';
import { workerToken } from './worker-token.js';

interface AttemptBody {
  agentId: string;
  attempt: number;
}

/**
 * An agent route: the attempt's token in `x-vigil-token`, `{ agentId, attempt }` in the body, one
 * `agentCall`. `toCall` turns the validated request into the domain's call.
 */
export function poolAgentRoute<Path extends z.ZodMiniType<{ poolId: string; itemId: string }>, Body extends z.ZodMiniType<AttemptBody>>(
  schemas: { path: Path; body: Body },
  toCall: (path: z.infer<Path>, body: z.infer<Body>) => AgentCall,
) {
  return httpRoute(schemas).handle(async ({ path, body, headers, event }) => {
    const { poolId, itemId } = path as { poolId: string; itemId: string };
    const { agentId, attempt } = body as AttemptBody;
    const deps = await managerFor(regionOfHttpEvent(event));
    const call = toCall(path as z.infer<Path>, body as z.infer<Body>);
    return ok(await agentCall(deps, { poolId, itemId, agentId, attempt, token: workerToken(headers, 'attempt'), call }));
  });
}
