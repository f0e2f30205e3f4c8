import { progressCoalesceMs } from './deadlines.js';
import type { Effect } from './effects.js';
import type { Job, TimeoutTrackingState } from './job.js';
import type { TimeoutPolicy } from './policy.js';
import { secondsToMs, type EpochMs } from './time.js';

/** Overdue by this much, a wake-up is presumed lost; until then its own delivery should arrive. */
export const LOST_WAKE_UP_GRACE_MS = 5_000;

/**
 * The job's own wake-up, due at `timerDueAt`, is overdue past the grace: presumed lost (its arming
 * message dropped, or the handler crashed after the write). Any wake-up may then act in its place.
 */
export const ownWakeUpLost = (item: { timerDueAt?: EpochMs }, now: EpochMs): boolean =>
  item.timerDueAt !== undefined && now >= item.timerDueAt + LOST_WAKE_UP_GRACE_MS;

/**
 * What a sweep fires for a wake-up it read from the timer index (a job's, or the gate's). The index
 * is a GSI and lags the item: after a takeover it can still hold the old fence, which the item would
 * drop as stale. When the item's own wake-up is overdue past the grace, the sweep fires that one (the
 * item's fence and due time, read strongly consistently), so a lagging entry never wastes the pass.
 */
export const sweptWakeUp = (
  item: { timerDueAt?: EpochMs },
  ownFence: number,
  indexed: { fenceToken: number; dueAt?: EpochMs },
  now: EpochMs,
): { fenceToken: number; dueAt?: EpochMs } =>
  item.timerDueAt !== undefined && ownWakeUpLost(item, now) ? { fenceToken: ownFence, dueAt: item.timerDueAt } : indexed;

/** Records the job's next wake-up (the sparse timer index) and asks for it to be armed. */
export function armJobTimer(job: Job, dueAt: EpochMs): { job: Job; effects: Effect[] } {
  return {
    job: { ...job, timerDueAt: dueAt },
    effects: [{ type: 'ArmTimer', timer: { scope: 'job', jobId: job.jobId, fenceToken: job.tracking.fenceToken, dueAt } }],
  };
}

/**
 * Withdraws the wake-ups armed at the job's current fence token. Most jobs only ever wake up within
 * minutes (SQS delay messages, which cannot be withdrawn): saying so lets the adapter skip the call.
 */
export const disarmJobTimer = (job: Job, policy: TimeoutPolicy): Effect => ({
  type: 'DisarmTimer',
  timer: { scope: 'job', jobId: job.jobId, fenceToken: job.tracking.fenceToken },
  armedAtMostMsAhead: wakeUpLeadBoundMs(job.tracking, policy) + CLOCK_SKEW_ALLOWANCE_MS,
});

/**
 * How long after the decision that arms it any wake-up of this job can be due, at most. Every one is
 * armed for `nextDueAt` or earlier (submit, fire, takeover, a deadline moved earlier): a local job's
 * is capped by its stuck deadline, at most the threshold and the coalescing window after the stored
 * progress; a gate-coordinated job's by its next report, one report interval after the last. Were it
 * ever short (a redeploy that shortens the interval), a schedule left armed fires once and is dropped.
 */
export const wakeUpLeadBoundMs = (tracking: TimeoutTrackingState, policy: TimeoutPolicy): number =>
  tracking.strategy === 'local_authority'
    ? secondsToMs(tracking.stuckThresholdSeconds) + progressCoalesceMs(tracking.stuckThresholdSeconds)
    : secondsToMs(policy.gateReportIntervalSeconds);

/**
 * The stored progress is stamped by the Lambda that heard it, whose clock may run ahead of the one
 * that arms the wake-up: a wake-up can be that much further ahead than `wakeUpLeadBoundMs`. Amazon's
 * time sync keeps Lambdas' clocks within milliseconds; this is generous on purpose.
 */
export const CLOCK_SKEW_ALLOWANCE_MS = 60_000;
