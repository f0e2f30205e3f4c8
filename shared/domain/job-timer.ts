import type { Effect } from './effects.js';
import type { Job } from './job.js';
import type { EpochMs } from './time.js';

/** Overdue by this much, a wake-up is presumed lost; until then its own delivery should arrive. */
export const LOST_WAKE_UP_GRACE_MS = 5_000;

/**
 * The job's own wake-up, due at `timerDueAt`, is overdue past the grace: presumed lost (its arming
 * message dropped, or the handler crashed after the write). Any wake-up may then act in its place.
 */
export const ownWakeUpLost = (job: Job, now: EpochMs): boolean =>
  job.timerDueAt !== undefined && now >= job.timerDueAt + LOST_WAKE_UP_GRACE_MS;

/**
 * What a sweep fires for a wake-up it read from the timer index. The index is a GSI and lags the
 * item: after a takeover it can still hold the old fence, which the job would drop as stale. When
 * the item's own wake-up is overdue past the grace, the sweep fires that one (the item's fence and
 * due time, read strongly consistently), so a lagging entry never wastes the sweep's pass.
 */
export const sweptWakeUp = (job: Job, indexed: { fenceToken: number; dueAt?: EpochMs }, now: EpochMs): { fenceToken: number; dueAt?: EpochMs } =>
  job.timerDueAt !== undefined && ownWakeUpLost(job, now) ? { fenceToken: job.tracking.fenceToken, dueAt: job.timerDueAt } : indexed;

/** Records the job's next wake-up (the sparse timer index) and asks for it to be armed. */
export function armJobTimer(job: Job, dueAt: EpochMs): { job: Job; effects: Effect[] } {
  return {
    job: { ...job, timerDueAt: dueAt },
    effects: [{ type: 'ArmTimer', timer: { scope: 'job', jobId: job.jobId, fenceToken: job.tracking.fenceToken, dueAt } }],
  };
}
