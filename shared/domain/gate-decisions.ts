import type { DecisionContext } from './decision-context.js';
import { metric, publish, unchanged, type Decision } from './effects.js';
import { finishJob, timeOutJob } from './finish-job.js';
import { leaderTransfer } from './gate-reports.js';
import { isTerminal, type Job } from './job.js';
import { onGateAnswer } from './own-cancel-to-gate.js';

/**
 * Seed 000 Scenario 3, done so nothing is lost: a decision older than the job's fence token is
 * rejected and answered with a correction (the current token), so the gate re-issues it with
 * that token. A repeat after the job ended re-announces the final status for the gate's bookkeeping,
 * and answers a cancel made in this region (`onGateAnswer`).
 */
export function onGlobalTimeout(job: Job, decision: { fenceToken: number }, ctx: DecisionContext): Decision<Job> {
  if (job.tracking.gateRegion === undefined) return unchanged(job, 'not_gate_coordinated');
  if (isTerminal(job.status)) return onGateAnswer(job, ctx);
  if (decision.fenceToken < job.tracking.fenceToken) {
    return unchanged(job, 'stale_fence', [
      publish(leaderTransfer(job, ctx)),
      metric('StaleMessageRejected', { kind: 'global_timeout' }),
    ]);
  }
  return timeOutJob(job, 'global_timeout', ctx);
}

/** The gate cancelled the job everywhere. Cancel carries no fence: it is the user's word, not a leader's. */
export function onGlobalCancel(job: Job, reason: string | undefined, ctx: DecisionContext): Decision<Job> {
  if (job.tracking.gateRegion === undefined) return unchanged(job, 'not_gate_coordinated');
  if (isTerminal(job.status)) return onGateAnswer(job, ctx);
  return finishJob(job, 'CANCELLED', ctx, reason !== undefined ? { cancelReason: reason } : {});
}
