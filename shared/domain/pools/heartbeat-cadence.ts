import type { PoolConfig } from './pool-config.js';

/** Below this an agent would beat faster than its pool needs to be heard from: grace 0 has nothing to keep. */
const MIN_CADENCE_SECONDS = 1;
/** Beats per window the agent must act within: see `agentHeartbeatSeconds`. */
const BEATS_PER_WINDOW = 3;

/**
 * How often an attempt of this pool should heartbeat (the claim answer's `heartbeatIntervalSeconds`).
 *
 * What only the cadence brings an agent is a stop it cannot see coming (a `terminate` for its pool's
 * cancel or `fail`, or for a stall), whose cleanup grace period runs from the stop, and a checkpoint
 * collection's request, open `checkpoint_timeout_secs` from when it asks: heard a whole beat late,
 * each has lost that much of its window (scheduled checkpoint requests and the deadlines the agent
 * knows are asked about as they come, whatever the cadence). A third of the shorter window: an agent
 * that hears on the beat after the stop still has two thirds of it to clean up or answer, and one
 * whose beat is missed or slow (a lost call, a beat held behind an unanswered one) hears on the next,
 * with a third left. Never more than half the checkpoint interval, as the SDK's own cap; at least
 * 1 s (to the millisecond below a third), unless half the checkpoint interval is less.
 * 10 s for a default pool (30 s grace, 30 s checkpoint timeout).
 */
export function agentHeartbeatSeconds(config: Pick<PoolConfig, 'timeout_config' | 'checkpoint_timeout_secs' | 'checkpoint_interval_secs'>): number {
  const windowMs = Math.min(config.timeout_config.cleanup_grace_period_secs, config.checkpoint_timeout_secs) * 1000;
  let thirdMs = Math.floor(windowMs / BEATS_PER_WINDOW);
  // Float division may round up to the whole millisecond above a third.
  if (thirdMs * BEATS_PER_WINDOW > windowMs) thirdMs -= 1;
  return Math.min(Math.max(MIN_CADENCE_SECONDS, thirdMs / 1000), config.checkpoint_interval_secs / 2);
}

/** What a claim answers about its attempt's cadence (claim-item.ts; the cost model's agents read the same). */
export const claimedCadence = (config: Pick<PoolConfig, 'timeout_config' | 'checkpoint_timeout_secs' | 'checkpoint_interval_secs'>) => ({
  checkpointIntervalSeconds: config.checkpoint_interval_secs,
  heartbeatIntervalSeconds: agentHeartbeatSeconds(config),
});
