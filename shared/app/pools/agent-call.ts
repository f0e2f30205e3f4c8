import { decideAgentCall, type AgentCall, type HeartbeatReply } from '../../domain/pools/agent-calls.js';
import { poolIsStopped, type Pool } from '../../domain/pools/pool.js';
import { InvalidTokenError } from '../../domain/errors.js';
import type { ManagerDeps } from '../manager-deps.js';
import { attemptTokens } from './attempt-tokens.js';
import { runFollowUps } from './follow-ups.js';
import { decideItem, loadItem, loadPool } from './pool-state-stores.js';

export interface AgentCallInput {
  poolId: string;
  itemId: string;
  agentId: string;
  attempt: number;
  token: string;
  call: AgentCall;
}

/**
 * Every agent call: the token must be this attempt's; then load, decide (lazy check of what is
 * due, the fence, the call), one conditional write, effects. A refused call is written first (it
 * is kept in the item's history) and then answered with its error.
 */
export async function agentCall(deps: ManagerDeps, input: AgentCallInput): Promise<unknown> {
  await attemptTokens(deps.tokens).verify(input.token, input.poolId, input.itemId, input.attempt);
  const [pool, loaded] = await Promise.all([loadPool(deps, input.poolId), loadItem(deps, input.poolId, input.itemId)]);
  const owner = loaded.history.find((entry) => entry.attempt === input.attempt)?.agentId;
  if (owner !== undefined && owner !== input.agentId) throw new InvalidTokenError('attempt');
  const { item, decision } = await decideItem(
    deps,
    input.poolId,
    input.itemId,
    (current) => decideAgentCall(current, pool, input.attempt, input.call, deps.clock.now()),
    loaded,
  );
  await runFollowUps(deps, item, pool);
  if (input.call.type === 'heartbeat' && !decision.refusal && item.version !== loaded.version) return heartbeatAfterAnyStop(deps, input, pool, decision.reply);
  if (decision.refusal) {
    deps.telemetry.info('agent call refused', {
      poolId: input.poolId,
      itemId: input.itemId,
      attempt: input.attempt,
      latestAttempt: item.attempt,
      call: input.call.type,
      code: decision.refusal.code,
    });
    throw decision.refusal;
  }
  return decision.reply;
}

/**
 * A heartbeat decided on an item written after the pool was read (its own write of what fell due, or
 * another's it read again) may come after the pool stopped: the item's write cannot be conditional on
 * the pool. Read again, a stopped pool is applied now, as its wake pass (not there yet) would, and as
 * a claim does: the heartbeat is decided again and answered `terminate` at once, as the next would be.
 * A heartbeat that wrote nothing is answered as of its reads.
 */
async function heartbeatAfterAnyStop(deps: ManagerDeps, input: AgentCallInput, read: Pool, reply: unknown): Promise<unknown> {
  if (poolIsStopped(read) || (reply as HeartbeatReply).action === 'terminate') return reply;
  const pool = await deps.pools.getPool(input.poolId);
  if (!pool || !poolIsStopped(pool)) return reply;
  const { item, decision } = await decideItem(deps, input.poolId, input.itemId, (current) => decideAgentCall(current, pool, input.attempt, input.call, deps.clock.now()));
  await runFollowUps(deps, item, pool);
  if (decision.refusal) throw decision.refusal;
  return decision.reply;
}
