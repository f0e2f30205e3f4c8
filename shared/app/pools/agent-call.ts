import { decideAgentCall, type AgentCall } from '../../domain/pools/agent-calls.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import { InvalidTokenError } from '../../domain/errors.js';
import type { ManagerDeps } from '../manager-deps.js';
import { attemptTokens } from './attempt-tokens.js';
import { runFollowUps } from './follow-ups.js';
import { decideItem, loadItem, loadPool } from './pool-state-stores.js';
import { decidedAgainIfStopped } from './stopped-since-read.js';

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
 * is kept in the item's history) and then answered with its error. A call whose write lands after
 * its pool stopped is decided again as a call after the stop (`decidedAgainIfStopped`); one that
 * wrote nothing is answered as of its reads.
 */
export async function agentCall(deps: ManagerDeps, input: AgentCallInput): Promise<unknown> {
  await attemptTokens(deps.tokens).verify(input.token, input.poolId, input.itemId, input.attempt);
  const [read, loaded] = await Promise.all([loadPool(deps, input.poolId), loadItem(deps, input.poolId, input.itemId)]);
  const owner = loaded.history.find((entry) => entry.attempt === input.attempt)?.agentId;
  if (owner !== undefined && owner !== input.agentId) throw new InvalidTokenError('attempt');
  let pool = read;
  const decideWith = (current: Pool) => (item: PoolItem) => decideAgentCall(item, current, input.attempt, input.call, deps.clock.now());
  const again = decidedAgainIfStopped(deps, read, decideWith, (stopped) => (pool = stopped));
  const { item, decision } = await decideItem(deps, input.poolId, input.itemId, decideWith(read), loaded, again);
  await runFollowUps(deps, item, pool);
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
