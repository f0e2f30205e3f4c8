import type { Effect } from './effects.js';
import type { Job } from './job.js';
import type { EpochMs } from './time.js';

/** Records the job's next wake-up (the sparse timer index) and asks for it to be armed. */
export function armJobTimer(job: Job, dueAt: EpochMs): { job: Job; effects: Effect[] } {
  return {
    job: { ...job, timerDueAt: dueAt },
    effects: [{ type: 'ArmTimer', timer: { scope: 'job', jobId: job.jobId, fenceToken: job.tracking.fenceToken, dueAt } }],
  };
}
