import type { DecisionContext } from './decision-context.js';
import { publish, publishResent, unchanged, type Decision } from './effects.js';
import { finalStatusEvent, finishJob } from './finish-job.js';
import type { Job } from './job.js';
import { armJobTimer } from './job-timer.js';
import { secondsToMs } from './time.js';

/**
 * How long a region re-sends its own cancel to a gate that does not answer: an hour's worth of sends,
 * the span of the gate's own re-sends (gate-policy.ts `rebroadcastGiveUpSeconds`), counted in sends so
 * that time this region's wake-ups were late does not use it up. After it, the other regions still end
 * by their own deadlines, and a decision the gate takes then asks this region, which answers.
 */
export const OWN_CANCEL_RESEND_SECONDS = 3_600;

const sendsBeforeGivingUp = (ctx: DecisionContext): number => Math.ceil(OWN_CANCEL_RESEND_SECONDS / ctx.policy.gateReportIntervalSeconds);

/**
 * A gate-coordinated job cancelled by a call to this region ends here at once, and its final status
 * asks the gate to cancel it in every region (seed 000: one job, consistent across DCs, as one region's
 * local timeout times it out everywhere). Only the gate reaches the other regions, and it may be down or
 * the message lost, so the region sends it again every report interval until a decision of the gate
 * comes back (`onGateAnswer`).
 */
export function cancelEverywhereFromRegion(job: Job, reason: string | undefined, ctx: DecisionContext): Decision<Job> {
  const nextSendAt = ctx.now + secondsToMs(ctx.policy.gateReportIntervalSeconds);
  const finished = finishJob({ ...job, cancelToSpread: { sends: 1, nextSendAt } }, 'CANCELLED', ctx, reason !== undefined ? { cancelReason: reason } : {});
  const armed = armJobTimer(finished.state, nextSendAt);
  return { state: armed.job, effects: [...finished.effects, ...armed.effects] };
}

/**
 * The cancelled job's wake-up while the gate has not answered: when due, the final status goes again
 * (a re-send, outside the outbox: the next one follows anyway), until the give-up. A wake-up before
 * `nextSendAt` (an outbox retry, a stale one) sends nothing: the one for `nextSendAt` was armed with it.
 */
export function resendOwnCancel(job: Job, ctx: DecisionContext): Decision<Job> {
  const spread = job.cancelToSpread;
  if (spread === undefined) return unchanged(job, 'already_terminal');
  if (ctx.now < spread.nextSendAt) return unchanged(job, 'not_due');
  if (spread.sends >= sendsBeforeGivingUp(ctx)) return { state: withoutSpread(job), effects: [] };
  const nextSendAt = ctx.now + secondsToMs(ctx.policy.gateReportIntervalSeconds);
  const armed = armJobTimer({ ...job, cancelToSpread: { sends: spread.sends + 1, nextSendAt } }, nextSendAt);
  return { state: armed.job, effects: [publishResent(finalStatusEvent(job, ctx)), ...armed.effects] };
}

/**
 * A decision of the gate (a cancel or a global timeout) reached the job after it ended here: the gate
 * has decided, and re-sends that decision to every region that has not ended it, so this region's own
 * cancel needs sending no more. The final status goes back, for the gate's view of this region.
 */
export function onGateAnswer(job: Job, ctx: DecisionContext): Decision<Job> {
  if (job.cancelToSpread === undefined) return unchanged(job, 'already_terminal', [publish(finalStatusEvent(job, ctx))]);
  const answered = withoutSpread(job);
  return { state: answered, effects: [publish(finalStatusEvent(answered, ctx))] };
}

function withoutSpread(job: Job): Job {
  const { cancelToSpread: _answered, timerDueAt: _resend, ...rest } = job;
  return rest;
}
