import { unchanged, type Decision } from './effects.js';
import { isTerminal, WorkflowMark, type Job, type TimeoutTrackingState } from './job.js';
import type { EpochMs } from './time.js';

function withExtensions(tracking: TimeoutTrackingState, extensionsByWorker: Record<string, number>): TimeoutTrackingState {
  const grants = Object.values(extensionsByWorker);
  return {
    ...tracking,
    extensionsByWorker,
    totalExtensionsGranted: grants.reduce((sum, seconds) => sum + seconds, 0),
    maxWorkerExtension: grants.reduce((max, seconds) => Math.max(max, seconds), 0),
  };
}

/**
 * Seed 001 §10.4.7: an extension granted to a worker moves the deadline of a RUNNING job it works on.
 * The job's timer is not touched: it fires at the old time, finds the job not due and re-arms.
 */
export function recordWorkerExtension(
  job: Job,
  workerId: string,
  workerIndexes: readonly number[],
  seconds: number,
  now: EpochMs,
): Decision<Job> {
  if (isTerminal(job.status)) return unchanged(job, 'already_terminal');
  if (!workerIndexes.some((index) => job.workflowMarks[index] === WorkflowMark.active)) {
    return unchanged(job, 'worker_has_no_active_workflow');
  }
  const byWorker = { ...job.tracking.extensionsByWorker, [workerId]: (job.tracking.extensionsByWorker[workerId] ?? 0) + seconds };
  return { state: { ...job, tracking: { ...withExtensions(job.tracking, byWorker), lastExtensionAt: now } }, effects: [] };
}

/** Seed 001 §10.4.9: a failed worker's extensions stop counting toward the job's deadline. */
export function withoutWorkerExtensions(job: Job, workerId: string): Job {
  if (!(workerId in job.tracking.extensionsByWorker)) return job;
  const { [workerId]: _removed, ...rest } = job.tracking.extensionsByWorker;
  return { ...job, tracking: withExtensions(job.tracking, rest) };
}

export function cleanupWorkerExtensions(job: Job, workerId: string): Decision<Job> {
  if (isTerminal(job.status)) return unchanged(job, 'already_terminal');
  const next = withoutWorkerExtensions(job, workerId);
  return next === job ? unchanged(job, 'no_extensions_of_worker') : { state: next, effects: [] };
}
