import type { DecisionContext } from './decision-context.js';
import type { Decision } from './effects.js';
import { JobFinishedError } from './errors.js';
import { finishJob } from './finish-job.js';
import { isTerminal, type Job } from './job.js';
import { cancelEverywhereFromRegion } from './own-cancel-to-gate.js';

/**
 * Seed 001 §10.4.9: cancel stops tracking. A finished job cannot be cancelled (409). A gate-coordinated
 * job is one job across its regions: the gate is asked to cancel it in the others too.
 */
export function cancelJob(job: Job, reason: string | undefined, ctx: DecisionContext): Decision<Job> {
  if (isTerminal(job.status)) throw new JobFinishedError(job.jobId, job.status);
  if (job.tracking.gateRegion !== undefined) return cancelEverywhereFromRegion(job, reason, ctx);
  return finishJob(job, 'CANCELLED', ctx, reason !== undefined ? { cancelReason: reason } : {});
}
