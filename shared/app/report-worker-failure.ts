import { newWorker } from '../domain/worker-health.js';
import { cleanupWorkerExtensions } from '../domain/worker-extensions.js';
import { VersionConflictError } from '../ports/job-store.js';
import { decideJob } from './job-state-store.js';
import { forEachJobOfWorker } from './jobs-of-worker.js';
import type { ManagerDeps } from './manager-deps.js';

const MAX_ATTEMPTS = 5;

/**
 * Seed 001 §10.4.9 `_handle_worker_failure`: the worker is marked failed and its extensions are
 * removed from every job it was in, so no job relies on a stale extension. Its next healthcheck
 * recovers it with a fresh budget.
 */
export async function reportWorkerFailure(deps: ManagerDeps, workerId: string) {
  const now = deps.clock.now();
  for (let attempt = 1; ; attempt++) {
    const worker = (await deps.jobs.getWorker(workerId)) ?? newWorker(workerId, now);
    try {
      await deps.jobs.saveWorker({ ...worker, failedAt: now }, worker.version);
      break;
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
  const jobsUpdated = await forEachJobOfWorker(deps, workerId, (jobId) =>
    decideJob(deps, jobId, (job) => cleanupWorkerExtensions(job, workerId)),
  );
  deps.telemetry.info('worker failed: extensions removed', { workerId, region: deps.region, jobsUpdated });
  return { workerId, status: 'failed' as const, jobsUpdated };
}
