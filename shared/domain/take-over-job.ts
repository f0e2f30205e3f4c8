import type { DecisionContext } from './decision-context.js';
import { nextDueAt } from './deadlines.js';
import { publish, type Decision } from './effects.js';
import { JobFinishedError } from './errors.js';
import { leaderTransfer } from './gate-reports.js';
import { isTerminal, type Job } from './job.js';
import { armJobTimer, disarmJobTimer } from './job-timer.js';

/**
 * Seed 000 Scenario 1 (`resume_tracking`): leadership moves, the fence token goes up by one and the
 * timer is re-armed under the new token. `startedAt` is kept, so the deadline does not move.
 * Everything still carrying the old token (timers, gate decisions) is rejected from here on, so the
 * old token's wake-up is withdrawn (its schedule is its own: the fence is in a schedule's name).
 */
export function takeOverJob(job: Job, ctx: DecisionContext): Decision<Job> {
  if (isTerminal(job.status)) throw new JobFinishedError(job.jobId, job.status);
  const promoted: Job = { ...job, tracking: { ...job.tracking, fenceToken: job.tracking.fenceToken + 1 } };
  // Never later than the wake-up already armed: it may be one `nextDueAt` does not know of (the job's
  // own timeout, where grants whose worker fell silent stop counting: long-sweep seed 921335).
  const armed = armJobTimer(promoted, Math.min(job.timerDueAt ?? Number.POSITIVE_INFINITY, nextDueAt(promoted, ctx.policy)));
  const effects = [...armed.effects, disarmJobTimer(job, ctx.policy)];
  if (promoted.tracking.gateRegion !== undefined) effects.push(publish(leaderTransfer(promoted, ctx)));
  return { state: armed.job, effects };
}
