import { freshBudget } from '../domain/extension-budget.js';
import { scopedWorkerId } from '../domain/tenant.js';
import { newWorker } from '../domain/worker-health.js';
import { VersionConflictError } from '../ports/job-store.js';
import type { ManagerDeps } from './manager-deps.js';
import { retireWorkerGrantsEverywhere } from './retire-worker-grants.js';

const MAX_ATTEMPTS = 5;

/**
 * Seed 001 §10.4.9 `_handle_worker_failure`: the worker is marked failed with a fresh budget (its
 * grants of every earlier budget stop counting) and its grants are retired from every job, each
 * re-armed for its earlier deadline. Recovery later keeps this fresh budget.
 */
export async function reportWorkerFailure(deps: ManagerDeps, plainId: string, tenant?: string) {
  const now = deps.clock.now();
  const workerId = scopedWorkerId(tenant, plainId);
  let epoch = 0;
  for (let attempt = 1; ; attempt++) {
    const stored = await deps.jobs.getWorker(workerId);
    const worker = stored ?? newWorker(workerId, now);
    epoch = worker.budget.epoch + 1;
    try {
      await deps.jobs.saveWorker({ ...worker, failedAt: now, budget: freshBudget(epoch) }, stored ? worker.version : 0);
      break;
    } catch (error) {
      if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
    }
  }
  const jobsUpdated = await retireWorkerGrantsEverywhere(deps, workerId, epoch);
  deps.telemetry.info('worker failed: extensions removed', { workerId, region: deps.region, jobsUpdated });
  return { workerId: plainId, status: 'failed' as const, jobsUpdated };
}
