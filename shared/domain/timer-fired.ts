import type { DecisionContext } from './decision-context.js';
import { effectiveDeadline, gateFallbackAt, grantLapseCheckAt, nextDueAt, stuckDeadline } from './deadlines.js';
import { metric, publishResent, unchanged, type Decision } from './effects.js';
import { finishJob, timeOutJob } from './finish-job.js';
import { progressReport, timeoutReport } from './gate-reports.js';
import { isTerminal, workflowCounts, type Job } from './job.js';
import { armJobTimer, ownWakeUpLost } from './job-timer.js';
import { resendOwnCancel } from './own-cancel-to-gate.js';
import { withoutGrants } from './worker-extensions.js';

export interface TimerFired {
  fenceToken: number;
  /** The due time the wake-up was armed for; absent for a check that is not a wake-up. */
  dueAt?: number;
}

/**
 * A job's wake-up fired: drop it when stale, re-arm when progress or an extension moved the
 * deadline, decide when due. Idempotent: a second delivery finds the job finished or not due.
 * `retiredGrants` are grants on this job that no longer count: their worker has failed since (seed
 * 001 §10.7.9) or has a fresh budget since (AD-26 `reset`), and the retiring walk has not reached
 * this job (a crash, a race).
 */
export function onTimerFired(
  job: Job,
  timer: TimerFired,
  ctx: DecisionContext,
  retiredGrants: ReadonlyArray<{ workerIndex: number; epochBefore: number }> = [],
  /** The earliest moment a worker whose grant still counts would be failed if silent (grantLapseCheckAt). */
  grantsLapseAt?: number,
): Decision<Job> {
  if (timer.fenceToken !== job.tracking.fenceToken) return unchanged(job, 'stale_timer', [metric('StaleMessageRejected', { kind: 'timer' })]);
  // A job cancelled here whose gate has not answered yet still re-sends the cancel to it.
  if (isTerminal(job.status)) return resendOwnCancel(job, ctx);
  // Only the wake-up the job last asked for may act: a late duplicate (a sweep and its SQS message
  // both arriving) would otherwise start a second chain of re-arms. When that one is itself overdue
  // past the grace (presumed lost), an older wake-up that still arrives acts in its place rather than
  // leave the job to the next sweep; its decision rewrites `timerDueAt`, so chains never multiply.
  if (superseded(job, timer, ctx.now)) return unchanged(job, 'superseded_timer');
  if (workflowCounts(job).active === 0) {
    // Every workflow reported an outcome but the write that finishes the job was lost (a crash).
    return finishJob(job, workflowCounts(job).failed > 0 ? 'FAILED' : 'COMPLETED', ctx);
  }
  const current = withoutGrants(job, retiredGrants);
  const due = Math.min(nextDueAt(current, ctx.policy), grantLapseCheckAt(current, grantsLapseAt));
  if (ctx.now < due || lapseCheckReadEarly(current, ctx)) {
    if (current === job && job.timerDueAt === due) return unchanged(job, 'not_due', armJobTimer(job, due).effects);
    const rearmed = armJobTimer(current, due);
    return { state: rearmed.job, effects: rearmed.effects };
  }
  return current.tracking.strategy === 'local_authority' ? decideLocally(current, ctx) : decideWithGate(current, ctx);
}

/**
 * Whether `onTimerFired` would read the stuck clock: a due wake-up that is not already a plain
 * timeout. Only then does the fire read the workflows' progress (`withWorkflowProgress`), so a
 * wake-up at the deadline costs no more than before.
 */
/** Another wake-up is the job's own now, and it is not (yet) presumed lost. */
const superseded = (job: Job, timer: TimerFired, now: number): boolean =>
  timer.dueAt !== undefined && job.timerDueAt !== undefined && timer.dueAt !== job.timerDueAt && !ownWakeUpLost(job, now);

export function dependsOnProgress(
  job: Job,
  timer: TimerFired,
  ctx: DecisionContext,
  retiredGrants: ReadonlyArray<{ workerIndex: number; epochBefore: number }> = [],
  grantsLapseAt?: number,
): boolean {
  if (timer.fenceToken !== job.tracking.fenceToken || isTerminal(job.status) || workflowCounts(job).active === 0) return false;
  if (superseded(job, timer, ctx.now)) return false;
  const current = withoutGrants(job, retiredGrants);
  if (ctx.now < Math.min(nextDueAt(current, ctx.policy), grantLapseCheckAt(current, grantsLapseAt))) return false;
  return !(current.tracking.strategy === 'local_authority' && ctx.now >= effectiveDeadline(current.tracking));
}

/**
 * A local job due by neither deadline was due only by the grant lapse check: its workers' health
 * was read before that moment and the clock passed it since (the reads take time; a wake-up can
 * arrive a little before its due time by this clock). The worker may be failing now: look again at
 * once, rather than time out a job that is neither past its deadline nor stuck.
 */
const lapseCheckReadEarly = (job: Job, ctx: DecisionContext): boolean =>
  job.tracking.strategy === 'local_authority' && ctx.now < effectiveDeadline(job.tracking) && ctx.now < stuckDeadline(job.tracking);

/** Seed 000 Part 3: the manager has full authority. Overall timeout first, then stuck. */
function decideLocally(job: Job, ctx: DecisionContext): Decision<Job> {
  return timeOutJob(job, ctx.now >= effectiveDeadline(job.tracking) ? 'timeout' : 'stuck', ctx);
}

/** Seed 000 Part 4: report to the gate, wait for its decision, fall back after `gateFallbackSeconds`. */
function decideWithGate(job: Job, ctx: DecisionContext): Decision<Job> {
  const t = job.tracking;
  const fallbackAt = gateFallbackAt(t, ctx.policy);
  if (fallbackAt !== undefined && ctx.now >= fallbackAt) return timeOutJob(job, 'gate_fallback', ctx);

  let next: Job = { ...job, tracking: { ...t, lastReportAt: ctx.now } };
  let report;
  if (t.locallyTimedOut) {
    // The timeout report is pending until the gate decides: resend it (seed 000 Scenario 2).
    report = timeoutReport(job, t.timeoutReason === 'stuck' ? 'stuck' : 'timeout', ctx);
  } else if (ctx.now >= effectiveDeadline(t) || ctx.now >= stuckDeadline(t)) {
    const reason = ctx.now >= effectiveDeadline(t) ? 'timeout' : 'stuck';
    next = {
      ...next,
      tracking: { ...next.tracking, locallyTimedOut: true, timeoutReason: reason, timeoutReportedAt: ctx.now },
    };
    report = timeoutReport(job, reason, ctx);
  } else {
    report = progressReport(job, ctx);
  }
  const rearmed = armJobTimer(next, nextDueAt(next, ctx.policy));
  return { state: rearmed.job, effects: [publishResent(report), ...rearmed.effects] };
}
