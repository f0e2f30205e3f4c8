import { budgetCapSeconds } from './extension-budget.js';
import type { Job, TimeoutTrackingState } from './job.js';
import type { TimeoutPolicy } from './policy.js';
import { secondsToMs, type EpochMs } from './time.js';

/** AD-34 Part 8: `startedAt + timeoutSeconds + totalExtensionsGranted`. */
export const effectiveDeadline = (tracking: TimeoutTrackingState): EpochMs =>
  tracking.startedAt + secondsToMs(tracking.timeoutSeconds + tracking.totalExtensionsGranted);

/**
 * The coalescing window: a heartbeat within it of the workflow's last stored call, and an advance
 * within it of the stored stuck clock, are not written (record-progress.ts `progressWrites`). The
 * stuck deadline gives the stored clock the window as slack, so an advance that was not written
 * never makes a job stuck early.
 */
export const progressCoalesceMs = (stuckThresholdSeconds: number): number =>
  Math.min(5_000, Math.round(secondsToMs(stuckThresholdSeconds) / 20));

export const stuckDeadline = (tracking: TimeoutTrackingState): EpochMs =>
  tracking.lastProgressAt +
  secondsToMs(tracking.stuckThresholdSeconds) +
  progressCoalesceMs(tracking.stuckThresholdSeconds);

export const nextGateReportAt = (tracking: TimeoutTrackingState, policy: TimeoutPolicy): EpochMs =>
  tracking.lastReportAt + secondsToMs(policy.gateReportIntervalSeconds);

export const gateFallbackAt = (tracking: TimeoutTrackingState, policy: TimeoutPolicy): EpochMs | undefined =>
  tracking.timeoutReportedAt === undefined ? undefined : tracking.timeoutReportedAt + secondsToMs(policy.gateFallbackSeconds);

/** The earliest moment anything about this RUNNING job can change without outside input. */
export function nextDueAt(job: Job, policy: TimeoutPolicy): EpochMs {
  const t = job.tracking;
  if (t.strategy === 'local_authority') return Math.min(effectiveDeadline(t), stuckDeadline(t));
  if (t.locallyTimedOut) {
    // Waiting for the gate: resend the pending report each interval until the decision or the fallback.
    return Math.min(gateFallbackAt(t, policy) ?? Infinity, nextGateReportAt(t, policy));
  }
  return Math.min(effectiveDeadline(t), stuckDeadline(t), nextGateReportAt(t, policy));
}

/** The job's own timeout, without any grant: no grant retired can move its deadline before this. */
export const ownTimeoutAt = (tracking: TimeoutTrackingState): EpochMs => tracking.startedAt + secondsToMs(tracking.timeoutSeconds);

/**
 * A job kept alive past its own timeout by grants looks again when one of their workers, silent,
 * would be failed (`lapseAt`): its grant stops counting then (seed 001 §10.7.9), and the job's
 * deadline with it. Without this a silently failed worker's grant would keep the job to the deadline
 * it made, past the detection bound.
 */
export function grantLapseCheckAt(job: Job, lapseAt: EpochMs | undefined): EpochMs {
  const t = job.tracking;
  if (lapseAt === undefined || t.totalExtensionsGranted === 0) return Infinity;
  return Math.max(ownTimeoutAt(t), lapseAt);
}

/**
 * No job is RUNNING after this: its deadline is at most every worker's full budget past the timeout
 * (one budget per worker per job, see `extension-ledger.ts`), and a gate-coordinated job falls back
 * at most `gateFallbackSeconds` after that. Workflow items expire some time after it.
 */
export const latestEndAt = (job: Job, workerCount: number, policy: TimeoutPolicy): EpochMs =>
  job.tracking.startedAt +
  secondsToMs(job.tracking.timeoutSeconds + workerCount * budgetCapSeconds(policy.extensions) + policy.gateFallbackSeconds);
