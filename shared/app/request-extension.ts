import { remainingExtensions, requestExtension as decideExtension } from '../domain/extension-budget.js';
import { metric } from '../domain/effects.js';
import { toIso } from '../domain/time.js';
import { healthDeadline, newWorker, workerStatus, type WorkerHealth } from '../domain/worker-health.js';
import { recordWorkerExtension } from '../domain/worker-extensions.js';
import { withExtensionReport } from '../domain/gate-reports.js';
import { VersionConflictError } from '../ports/job-store.js';
import { runEffects } from './effect-runner.js';
import { decideJob } from './job-state-store.js';
import { decisionContext, type ManagerDeps } from './manager-deps.js';
import { forEachJobOfWorker } from './jobs-of-worker.js';

export interface ExtensionInput {
  workerId: string;
  token: string;
  currentProgress: number;
}

const MAX_ATTEMPTS = 5;

/** AD-26 extension request; a grant moves the deadline of every RUNNING job the worker is active in. */
export async function requestExtension(deps: ManagerDeps, input: ExtensionInput) {
  deps.tokens.verify(input.token, input.workerId);
  for (let attempt = 1; ; attempt++) {
    const now = deps.clock.now();
    const stored = await deps.jobs.getWorker(input.workerId);
    const worker: WorkerHealth = stored ?? newWorker(input.workerId, now);
    const suspect = workerStatus(worker, now, deps.policy) !== 'healthy';
    const outcome = decideExtension(worker.budget, input.currentProgress, suspect, deps.policy.extensions);
    if (!outcome.granted) {
      await runEffects(deps, [metric('ExtensionDenied')]);
      deps.telemetry.info('extension denied', { workerId: input.workerId, region: deps.region, denialReason: outcome.denialReason });
      return {
        granted: false,
        extensionSeconds: 0,
        newDeadline: toIso(healthDeadline(worker, deps.policy)),
        remainingExtensions: remainingExtensions(worker.budget, deps.policy.extensions),
        denialReason: outcome.denialReason,
      };
    }
    // The jobs first, idempotently by grant: if the budget write below never happens (a crash, a
    // lost race), the retried request computes the same grant and extends no job twice.
    const grant = { epoch: outcome.budget.epoch, count: outcome.budget.count };
    const jobsExtended = await forEachJobOfWorker(deps, input.workerId, (jobId, indexes) =>
      decideJob(deps, jobId, (job) =>
        withExtensionReport(recordWorkerExtension(job, input.workerId, indexes, outcome.seconds, now, grant), decisionContext(deps)),
      ),
    );
    let granted: WorkerHealth;
    try {
      granted = await deps.jobs.saveWorker({ ...worker, budget: outcome.budget }, worker.version);
    } catch (error) {
      if (error instanceof VersionConflictError && attempt < MAX_ATTEMPTS) continue;
      throw error;
    }
    await runEffects(deps, [metric('ExtensionGranted')]);
    deps.telemetry.info('extension granted', {
      workerId: input.workerId,
      region: deps.region,
      extensionSeconds: outcome.seconds,
      jobsExtended,
    });
    return {
      granted: true,
      extensionSeconds: outcome.seconds,
      newDeadline: toIso(healthDeadline(granted, deps.policy)),
      remainingExtensions: remainingExtensions(granted.budget, deps.policy.extensions),
    };
  }
}

