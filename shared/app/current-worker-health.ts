import { heardAt, type WorkerHealth } from '../domain/worker-health.js';
import type { WorkflowRef } from '../ports/job-store.js';
import type { ManagerDeps } from './manager-deps.js';

/**
 * A worker's health as of its latest call: its item, with the last call stored on each workflow the
 * index lists for it folded in (a report that writes its workflow leaves the worker item alone,
 * report-progress.ts). The workflows are read before the item: a workflow leaving the index hands
 * its time to the item first, so a read racing the hand-over still sees the time in one of them.
 * `except` leaves one workflow out: the caller folds in its time itself.
 */
export async function currentWorkerHealth(deps: Pick<ManagerDeps, 'jobs'>, workerId: string, except?: WorkflowRef): Promise<WorkerHealth | undefined> {
  const fromWorkflows = await deps.jobs.latestHeardFromWorkflows(workerId, except);
  const worker = await deps.jobs.getWorker(workerId);
  return worker && heardAt(worker, fromWorkflows);
}
