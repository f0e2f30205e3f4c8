import { JobNotFoundError } from '../domain/errors.js';
import type { ManagerDeps } from './manager-deps.js';

/** Runs `apply` once per job the worker has workflows in; returns how many jobs it ran for. */
export async function forEachJobOfWorker(
  deps: ManagerDeps,
  workerId: string,
  apply: (jobId: string, workerIndexes: number[]) => Promise<unknown>,
): Promise<number> {
  const indexesByJob = new Map<string, number[]>();
  for (const { jobId, index } of await deps.jobs.findWorkflowsOfWorker(workerId)) {
    indexesByJob.set(jobId, [...(indexesByJob.get(jobId) ?? []), index]);
  }
  for (const [jobId, indexes] of indexesByJob) {
    try {
      await apply(jobId, indexes);
    } catch (error) {
      // The workflow items exist but the job item was never written (a submit that crashed midway).
      if (!(error instanceof JobNotFoundError)) throw error;
    }
  }
  return indexesByJob.size;
}
