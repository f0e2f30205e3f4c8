import { resetBudget } from '../domain/extension-budget.js';
import type { Job } from '../domain/job.js';
import { VersionConflictError } from '../ports/job-store.js';
import { forEachJobOfWorker } from './jobs-of-worker.js';
import type { ManagerDeps } from './manager-deps.js';
import { newWorker } from '../domain/worker-health.js';
import { retireWorkerGrantsEverywhere } from './retire-worker-grants.js';

const MAX_ATTEMPTS = 3;

/**
 * AD-26 `reset` on `on_worker_healthy` ("when worker completes operation"): once a
 * worker has no active workflow left in any job, its next work starts with a fresh budget, and the
 * old budget's grants stop counting on the jobs still running (where its part is done), including a
 * grant the budget never counted (its request crashed before the budget write), which the index
 * still lists. `finishedIn`,
 * the job whose workflow it just finished, is walked whatever the index lists. A budget already
 * fresh is walked again: a repeat of the call that reset it may follow a crash before its walk,
 * which would otherwise leave the job's wake-up at the deadline the old grants made (a review finding).
 */
export async function resetBudgetWhenIdle(deps: ManagerDeps, workerId: string, finishedIn?: Job): Promise<void> {
  for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
    // Idle is checked on every attempt: the write that overtook the last one may be a grant of work it started since.
    const { jobs: activeJobs, listedGrants } = await forEachJobOfWorker(deps, workerId, async () => undefined);
    if (activeJobs > 0) return;
    const stored = await deps.jobs.getWorker(workerId);
    // No item: the worker's first call was an extension request that crashed before writing it; its grant may still be on a job.
    const worker = stored ?? newWorker(workerId, deps.clock.now());
    const budget = resetBudget(worker.budget, listedGrants > 0);
    // Epoch 0 with nothing spent and no grant on any job: this worker was never granted anything, so there is nothing to walk.
    if (budget.epoch === 0 && budget.count === 0) return;
    try {
      if (budget !== worker.budget) await deps.jobs.saveWorker({ ...worker, budget }, stored ? stored.version : 0);
      await retireWorkerGrantsEverywhere(deps, workerId, budget.epoch, finishedIn);
      return;
    } catch (error) {
      // Someone else wrote the worker (an extension, a failure): decide again on what they wrote.
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }
}
