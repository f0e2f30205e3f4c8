import { isTerminal, type Job } from '../domain/job.js';
import { onTimerFired } from '../domain/timer-fired.js';
import { workerStatus } from '../domain/worker-health.js';
import type { TimerRequest } from '../ports/timers.js';
import { flushOutbox } from './decide-and-save.js';
import { decideJob, jobStateStore } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';

/**
 * A job's wake-up arrived (SQS, the local scheduler or the sweep). Publishes any outbox a crash
 * left behind, then lets the domain drop, re-arm or decide.
 */
export async function fireJobTimer(deps: ManagerDeps, timer: TimerRequest): Promise<void> {
  let job = await deps.jobs.getJob(timer.jobId);
  if (!job) return;
  job = await flushOutbox(jobStateStore(deps.jobs), deps, job);
  if (isTerminal(job.status)) return;
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
