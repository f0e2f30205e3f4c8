import { unchanged, type Decision } from './effects.js';
import type { GrantId } from './extension-budget.js';
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

const notAfter = (grant: GrantId, applied: GrantId | undefined): boolean =>
  applied !== undefined && (grant.epoch < applied.epoch || (grant.epoch === applied.epoch && grant.count <= applied.count));

/**
 * Seed 001 §10.4.7: an extension granted to a worker moves the deadline of a RUNNING job it works on.
 * The job's timer is not touched: it fires at the old time, finds the job not due and re-arms.
 * With `grant`, applying the same grant again is a no-op: the grant is applied to the jobs before the
 * worker's budget is saved, so a request retried after a crash in between extends each job once.
 */
export function recordWorkerExtension(
  job: Job,
  workerId: string,
  workerIndexes: readonly number[],
  seconds: number,
  now: EpochMs,
  grant?: GrantId,
): Decision<Job> {
  if (isTerminal(job.status)) return unchanged(job, 'already_terminal');
  if (!workerIndexes.some((index) => job.workflowMarks[index] === WorkflowMark.active)) {
    return unchanged(job, 'worker_has_no_active_workflow');
  }
  if (grant && notAfter(grant, job.tracking.lastGrantByWorker?.[workerId])) return unchanged(job, 'grant_already_applied');
  const byWorker = { ...job.tracking.extensionsByWorker, [workerId]: (job.tracking.extensionsByWorker[workerId] ?? 0) + seconds };
  const tracking = { ...withExtensions(job.tracking, byWorker), lastExtensionAt: now };
  if (grant) tracking.lastGrantByWorker = { ...job.tracking.lastGrantByWorker, [workerId]: grant };
  return { state: { ...job, tracking }, effects: [] };
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
