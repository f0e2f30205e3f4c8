import type { DecisionContext } from '../domain/decision-context.js';
import { isTerminal, type Job } from '../domain/job.js';
import { sweptWakeUp } from '../domain/job-timer.js';
import { withWorkflowProgress } from '../domain/record-progress.js';
import { dependsOnProgress, onTimerFired } from '../domain/timer-fired.js';
import type { TimerRequest } from '../ports/timers.js';
import { flushOutbox } from './decide-and-save.js';
import { decideJob, managerJobStateStore } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { grantsInForce } from './retired-grants.js';

/**
 * A job's wake-up arrived (SQS, the local scheduler or the sweep). Lets the domain drop, re-arm or
 * decide, then publishes the outbox (what this decision added and anything a crash or outage left).
 */
export async function fireJobTimer(deps: ManagerDeps, arrived: TimerRequest, from: 'queue' | 'sweep' = 'queue'): Promise<void> {
  const job = await deps.jobs.getJob(arrived.jobId);
  if (!job) return;
  const timer = from === 'sweep' ? { ...arrived, ...sweptWakeUp(job, job.tracking.fenceToken, arrived, deps.clock.now()) } : arrived;
  // The outbox is published after the decision's write, never before it: a bus outage must not stop a timeout.
  if (isTerminal(job.status) && job.cancelToSpread !== undefined) {
    // Cancelled here, the gate not answered yet: the cancel may be due again (own-cancel-to-gate.ts).
    await decideJob(deps, job.jobId, (current) => onTimerFired(current, timer, decisionContext(deps)), job);
    return;
  }
  if (isTerminal(job.status)) {
    deps.telemetry.metric('WakeUpDropped', { reason: 'already_terminal' });
    // From the sweep the retry is written before the publish: a sweep cut off on a hung bus moves on.
    await flushOutbox(managerJobStateStore(deps), deps, job, deps.clock.now(), false, from === 'sweep');
    return;
  }
  let inForce = await grantsInForce(deps, job);
  const ctx = decisionContext(deps);
  // Reports write only their workflow: a decision on the stuck clock first folds in the workflows'
  // advances (record-progress.ts), and a reload after a conflict always does.
  const withProgress = async (current: Job) => withWorkflowProgress(current, await deps.jobs.latestWorkflowProgressAt(current.jobId, current.incarnation));
  // The first attempt decides at the instant `dependsOnProgress` was asked at: a clock that ticked
  // past the stuck deadline in between would decide on the job's stored clock alone, without the
  // workflows' advances. The clock is read again on a retry, so what it reports is never dated
  // before the write it lost to (and a reload always folds the advances in).
  let firstCtx: DecisionContext | undefined = ctx;
  const { state, decision } = await decideJob(
    deps,
    job.jobId,
    (current) => {
      const attemptCtx = firstCtx ?? decisionContext(deps);
      firstCtx = undefined;
      return onTimerFired(current, timer, attemptCtx, inForce.retired, inForce.lapseAt);
    },
    dependsOnProgress(job, timer, ctx, inForce.retired, inForce.lapseAt) ? await withProgress(job) : job,
    async (jobId) => {
      const current = await deps.jobs.getJob(jobId);
      if (!current) return current;
      // A lost race: a worker read as failed may have recovered since, with a fresh budget and a
      // grant from it on this job, which the first reading would take off. Read the grants again.
      inForce = await grantsInForce(deps, current);
      return withProgress(current);
    },
  );
  if (state.status === 'TIMED_OUT' && decision.ignored === undefined) {
    deps.telemetry.info('job timed out', {
      jobId: state.jobId,
      region: deps.region,
      fenceToken: state.tracking.fenceToken,
      reason: state.tracking.timeoutReason,
    });
  } else if (decision.ignored === 'stale_timer') {
    deps.telemetry.info('stale timer dropped', { jobId: job.jobId, region: deps.region, fenceToken: timer.fenceToken });
  }
  if (isDropped(decision.ignored)) deps.telemetry.metric('WakeUpDropped', { reason: decision.ignored });
}

/** A wake-up the lazy checks threw away (an armed delay message cannot be withdrawn); `not_due` only re-arms. */
export const isDropped = (ignored: string | undefined): ignored is string => ignored !== undefined && ignored !== 'not_due';
