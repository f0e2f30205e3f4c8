import type { Claim } from '../contract/pool-responses.js';
import { MAX_TIMEOUT_MS } from '../ports/long-timeout.js';

/**
 * The attempt heartbeat's interval against a Vigil whose claim answer names no cadence
 * (`heartbeatIntervalSeconds`, added later), unless the agent names one.
 */
export const DEFAULT_AGENT_HEARTBEAT_MS = 5_000;

/** How long after a checkpoint request opens the agent asks about it, beside its cadence. */
export const CHECKPOINT_REQUEST_BEAT_SLACK_MS = 250;

/** The checkpoint interval a claim answer without one stands for (the contract's default). */
const DEFAULT_CHECKPOINT_INTERVAL_MS = 300_000;

/** What of a claim answer the cadence follows. */
export type ClaimedCadence = Pick<Claim, 'checkpointIntervalSeconds' | 'heartbeatIntervalSeconds'>;

/**
 * A claimed interval, unless it is not a positive number (a wrong Vigil or a proxy before it): 0 or less
 * fired the beat after each checkpoint request again at once, as fast as Vigil answered. Then the default.
 */
const claimedSeconds = (seconds: number | undefined): number | undefined => (seconds !== undefined && seconds > 0 ? seconds : undefined);

export const checkpointIntervalMs = (claimed: ClaimedCadence): number => (claimedSeconds(claimed.checkpointIntervalSeconds) ?? DEFAULT_CHECKPOINT_INTERVAL_MS / 1000) * 1000;

/**
 * How often an attempt heartbeats (agent.ts and `vigil run`; the cost model's agents call at the same
 * rate): the agent's own interval when it names one (`heartbeatIntervalMs`, `vigil run --heartbeat`),
 * else the cadence its pool needs as the claim answered it (`heartbeatIntervalSeconds`), else 5 s (a
 * Vigil older than that field); at most half the checkpoint interval. A longer interval than
 * setTimeout waits would make setInterval beat every millisecond; beating sooner is harmless.
 */
export function sdkAgentHeartbeatMs(claimed: ClaimedCadence, agentIntervalMs?: number): number {
  const poolSeconds = claimedSeconds(claimed.heartbeatIntervalSeconds);
  const namedMs = agentIntervalMs ?? (poolSeconds === undefined ? DEFAULT_AGENT_HEARTBEAT_MS : poolSeconds * 1000);
  return Math.max(100, Math.min(namedMs, checkpointIntervalMs(claimed) / 2, MAX_TIMEOUT_MS));
}

/**
 * Why an agent's own interval is too slow for its pool, or undefined: slower than the cadence the claim
 * answered, a `terminate` (pool cancelled or failed, a stall) or a checkpoint collection may be heard
 * after the grace period or the collection's timeout has run out. It still beats at its own interval.
 */
export function slowerThanPoolWarning(claimed: ClaimedCadence, agentIntervalMs: number | undefined): string | undefined {
  if (agentIntervalMs === undefined || claimedSeconds(claimed.heartbeatIntervalSeconds) === undefined) return undefined;
  const beatMs = sdkAgentHeartbeatMs(claimed, agentIntervalMs);
  const poolMs = sdkAgentHeartbeatMs(claimed);
  if (beatMs <= poolMs) return undefined;
  return (
    `heartbeat every ${beatMs / 1000} s, slower than the ${poolMs / 1000} s its pool asks for: a terminate (the pool cancelled or failed, ` +
    `a stall) or a checkpoint collection may be heard too late to clean up within the grace period or answer within the checkpoint timeout. ` +
    `Leave the interval to the pool (no heartbeatIntervalMs, no --heartbeat) or name ${poolMs / 1000} s or less.`
  );
}
