import { AgentStarted } from '../../events/pools/agent-started.js';
import { metric, publish, unchanged, type Decision } from '../effects.js';
import { secondsToMs, type EpochMs } from '../time.js';
import { attemptEventFields } from './attempt-events.js';
import { withNewHistoryEntry } from './item-history.js';
import { withWakeUp } from './item-wake-up.js';
import { monitored } from './monitoring.js';
import { agentLimitSeconds, type AgentKind } from './pool-config.js';
import type { Pool } from './pool.js';
import type { PoolItem } from './pool-item.js';

export interface ClaimInput {
  agentId: string;
  kind: AgentKind;
  /** The caller's idempotency key, kept on the attempt it takes (`claimedAttempt`). */
  claimId?: string;
}

/**
 * Where this agent's claim with this id stands on this item: its attempt still running, over, or not
 * this item's. A claimId is its agent's own: another agent's attempt under the same id is not it.
 */
export function claimedAttempt(item: PoolItem, claim: { agentId: string; claimId: string }): { attempt: number; running: boolean } | undefined {
  const { agentId, claimId } = claim;
  if (item.run?.claimId === claimId && item.run.agentId === agentId) return { attempt: item.run.attempt, running: true };
  const ended = item.history.find((entry) => entry.claimId === claimId && entry.agentId === agentId);
  return ended ? { attempt: ended.attempt, running: false } : undefined;
}

/**
 * A claim is a new attempt: `available → running, attempt + 1`, written conditionally on the
 * version read, so of two agents racing for one item exactly one wins. The agent deadline runs
 * from the claim; checkpoint requests open every interval from it (seed 002).
 */
export function claimItem(item: PoolItem, pool: Pick<Pool, 'status' | 'config'>, claim: ClaimInput, now: EpochMs): Decision<PoolItem> {
  if (item.state !== 'available' || pool.status !== 'RUNNING') return unchanged(item, 'not_claimable');
  const attempt = item.attempt + 1;
  const limit = agentLimitSeconds(pool.config, claim.kind, item.limitSeconds);
  const run = {
    attempt,
    agentId: claim.agentId,
    ...(claim.claimId !== undefined ? { claimId: claim.claimId } : {}),
    kind: claim.kind,
    startedAt: now,
    agentDeadlineAt: limit === null ? null : now + secondsToMs(limit),
    agentLimitSeconds: limit,
    nextCheckpointAt: now + secondsToMs(pool.config.checkpoint_interval_secs),
    checkpointMisses: 0,
  };
  const { reason: _cleared, ...rest } = item;
  let next: PoolItem = { ...rest, state: 'running', attempt, run, stats: { ...item.stats, agentsStarted: item.stats.agentsStarted + 1 } };
  next = withNewHistoryEntry(next, { attempt, agentId: claim.agentId, ...(claim.claimId !== undefined ? { claimId: claim.claimId } : {}), startedAt: now });
  const timed = withWakeUp(item, next, pool.config, now);
  return {
    state: timed.item,
    effects: monitored(pool.config, [
      ...timed.effects,
      publish(AgentStarted.build({ ...attemptEventFields(item, run, now), kind: claim.kind, timeoutSeconds: limit })),
      metric('AgentStarted'),
    ]),
  };
}
