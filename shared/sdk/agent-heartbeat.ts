import { MAX_TIMEOUT_MS } from '../ports/long-timeout.js';

/** The attempt heartbeat's interval unless the agent names one (`heartbeatIntervalMs`, `vigil run --heartbeat`). */
export const DEFAULT_AGENT_HEARTBEAT_MS = 5_000;

/** How long after a checkpoint request opens the agent asks about it, beside its cadence. */
export const CHECKPOINT_REQUEST_BEAT_SLACK_MS = 250;

/**
 * How often an attempt heartbeats (agent.ts; the cost model's agents call at the same rate): the
 * agent's interval, at most half the checkpoint interval. A longer interval than setTimeout waits
 * would make setInterval beat every millisecond; beating sooner is harmless.
 */
export const sdkAgentHeartbeatMs = (checkpointIntervalMs: number, heartbeatIntervalMs = DEFAULT_AGENT_HEARTBEAT_MS): number =>
  Math.max(100, Math.min(heartbeatIntervalMs, checkpointIntervalMs / 2, MAX_TIMEOUT_MS));
