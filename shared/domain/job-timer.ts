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

/** Records the job's next wake-up (the sparse timer index) and asks for it to be armed. */
export function armJobTimer(job: Job, dueAt: EpochMs): { job: Job; effects: Effect[] } {
  return {
    job: { ...job, timerDueAt: dueAt },
    effects: [{ type: 'ArmTimer', timer: { scope: 'job', jobId: job.jobId, fenceToken: job.tracking.fenceToken, dueAt } }],
  };
}
