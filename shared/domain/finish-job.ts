import type { DecisionContext } from './decision-context.js';
import { metric, publish, type Decision, type Effect } from './effects.js';
import type { Job, JobStatus, TimeoutReason } from './job.js';
import { disarmJobTimer } from './job-timer.js';
import { toIso } from './time.js';
import { JobFinalStatus } from '../events/job-final-status.js';
import { JobTimedOut } from '../events/job-timed-out.js';

type TerminalStatus = Exclude<JobStatus, 'RUNNING'>;

/**
 * The only way a job leaves RUNNING. The write that carries it is conditional on the version the
 * decision read, so when completion and a timeout race exactly one terminal state is stored.
 */
export function finishJob(
  job: Job,
  status: TerminalStatus,
  ctx: DecisionContext,
  extra: { timeoutReason?: TimeoutReason; cancelReason?: string } = {},
): Decision<Job> {
  const { timerDueAt: _disarmed, ...rest } = job;
  // A reason says how a job timed out: one that completed or was cancelled while its local timeout
  // waited for the gate's word keeps none (its `locallyTimedOut` still records the report).
  const { timeoutReason: pendingReason, ...tracking } = job.tracking;
  const timeoutReason = extra.timeoutReason ?? (status === 'TIMED_OUT' ? pendingReason : undefined);
  const finished: Job = {
    ...rest,
    status,
    finishedAt: ctx.now,
    ...(extra.cancelReason !== undefined ? { cancelReason: extra.cancelReason } : {}),
    tracking: {
      ...tracking,
      ...(timeoutReason !== undefined ? { timeoutReason } : {}),
      ...(extra.timeoutReason === 'global_timeout' ? { globallyTimedOut: true } : {}),
    },
  };
  const effects: Effect[] = [
    disarmJobTimer(job, ctx.policy),
    metric('JobFinished', { status }),
  ];
  if (status === 'TIMED_OUT' && extra.timeoutReason !== undefined) {
    effects.push(publish(jobTimedOutEvent(finished, extra.timeoutReason, ctx)), metric('JobTimedOut', { reason: extra.timeoutReason }));
  }
  if (finished.tracking.gateRegion !== undefined) effects.push(publish(finalStatusEvent(finished, ctx)));
  return { state: finished, effects };
}

export const timeOutJob = (job: Job, reason: TimeoutReason, ctx: DecisionContext): Decision<Job> =>
  finishJob(job, 'TIMED_OUT', ctx, { timeoutReason: reason });

function jobTimedOutEvent(job: Job, reason: TimeoutReason, ctx: DecisionContext) {
  return JobTimedOut.build({
    jobId: job.jobId,
    region: job.region,
    strategy: job.tracking.strategy,
    reason,
    startedAt: toIso(job.tracking.startedAt),
    timedOutAt: toIso(ctx.now),
    fenceToken: job.tracking.fenceToken,
  });
}

/** Sent whenever the gate may not know the job's end yet; the gate treats repeats as no-ops. */
export function finalStatusEvent(job: Job, ctx: DecisionContext) {
  const status = job.status;
  if (status === 'RUNNING' || job.tracking.gateRegion === undefined) {
    throw new Error(`finalStatusEvent needs a finished gate-coordinated job, got ${status}`);
  }
  return JobFinalStatus.build({
    jobId: job.jobId,
    region: job.region,
    gateRegion: job.tracking.gateRegion,
    managerId: ctx.managerId,
    status,
    ...(job.tracking.timeoutReason !== undefined ? { timeoutReason: job.tracking.timeoutReason } : {}),
    ...(status === 'CANCELLED' && job.cancelReason !== undefined ? { cancelReason: job.cancelReason } : {}),
    ...(job.cancelToSpread !== undefined ? { cancelEverywhere: true } : {}),
    timestamp: toIso(job.finishedAt ?? ctx.now),
    fenceToken: job.tracking.fenceToken,
  });
}
