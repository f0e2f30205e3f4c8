import type { Decision } from '../effects.js';
import { JobFinishedError, TimeoutBeingAppliedError } from '../errors.js';
import type { EpochMs } from '../time.js';
import { broadcastDecision } from './broadcast-decision.js';
import type { GateJob } from './gate-job.js';
import { gateJobStatus } from './gate-job-status.js';
import type { GatePolicy } from './gate-policy.js';
import { withNextDecisionFence } from './gate-timer.js';

/**
 * Cancel through the gate: reaches every region that has not ended the job, with the same re-sends
 * as a global timeout. A job that is no longer RUNNING across regions (already decided, or ended
 * everywhere) cannot be cancelled (409), like the manager's cancel. Cancel is a decision too, so it
 * bumps the decision counter and a wake-up armed before it is stale.
 */
export function cancelGateJob(job: GateJob, reason: string | undefined, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const status = gateJobStatus(job);
  // A declared global timeout is a decision already, confirmed by a region or not; unconfirmed, the
  // regions may yet answer that they had completed, so the refusal does not call the job TIMED_OUT.
  if (job.globallyTimedOut) throw new TimeoutBeingAppliedError(job.jobId);
  if (status !== 'RUNNING') throw new JobFinishedError(job.jobId, status);
  return decideCancel(job, reason !== undefined ? { reason } : {}, now, policy);
}

/** The cancel decision itself, whoever asked: recorded, then sent to every region that has not ended the job. */
export function decideCancel(job: GateJob, request: NonNullable<GateJob['cancelRequested']>, now: EpochMs, policy: GatePolicy): Decision<GateJob> {
  const decided = withNextDecisionFence(job);
  const cancelled: GateJob = { ...decided.job, cancelRequested: request, decidedAt: now };
  return broadcastDecision(cancelled, now, policy, decided.effects);
}
