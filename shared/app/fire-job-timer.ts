import { isTerminal, type Job } from '../domain/job.js';
import { onTimerFired } from '../domain/timer-fired.js';
import { workerStatus } from '../domain/worker-health.js';
import type { TimerRequest } from '../ports/timers.js';
import { flushOutbox } from './decide-and-save.js';
import { decideJob, jobStateStore } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';

/**
 * A job's wake-up arrived (SQS, the local scheduler or the sweep). Lets the domain drop, re-arm or
 * decide, then publishes the outbox (what this decision added and anything a crash or outage left).
 */
export async function fireJobTimer(deps: ManagerDeps, timer: TimerRequest): Promise<void> {
  const job = await deps.jobs.getJob(timer.jobId);
  if (!job) return;
  // The outbox is published after the decision's write, never before it: a bus outage must not stop a timeout (finding 9).
  if (isTerminal(job.status)) {
    await flushOutbox(jobStateStore(deps.jobs), deps, job, deps.clock.now());
    return;
  }
  const failedWorkerIds = await failedWorkersHoldingExtensions(deps, job);
  const { state, decision } = await decideJob(
    deps,
    job.jobId,
    (current) => onTimerFired(current, timer, decisionContext(deps), failedWorkerIds),
    job,
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
}

/** Seed 001 §10.7.9: extensions of workers that have failed since must not keep the job alive. */
async function failedWorkersHoldingExtensions(deps: ManagerDeps, job: Job): Promise<string[]> {
  const holders = Object.keys(job.tracking.extensionsByWorker);
  if (holders.length === 0) return [];
  const now = deps.clock.now();
  const workers = await deps.jobs.getWorkers(holders);
  const known = new Set(workers.map((w) => w.workerId));
  return [
    ...workers.filter((w) => workerStatus(w, now, deps.policy) === 'failed').map((w) => w.workerId),
    ...holders.filter((id) => !known.has(id)),
  ];
}
