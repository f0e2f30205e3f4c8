import { freshBudget, resetBudget, type ExtensionBudget } from './extension-budget.js';
import type { TimeoutPolicy } from './policy.js';
import { secondsToMs, type EpochMs } from './time.js';

/** AD-26 / seed 001 §10.4.9: a worker's health as the manager sees it. */
export interface WorkerHealth {
  workerId: string;
  version: number;
  /** Last healthcheck: every progress report is one. */
  lastHealthAt: EpochMs;
  budget: ExtensionBudget;
  /** Set when the worker was reported failed; cleared when it recovers. */
  failedAt?: EpochMs;
}

export type WorkerStatus = 'healthy' | 'suspect' | 'failed';

export const newWorker = (workerId: string, now: EpochMs): WorkerHealth => ({
  workerId,
  version: 0,
  lastHealthAt: now,
  budget: freshBudget(),
});

/**
 * The worker with a later call folded in. A report that writes its workflow item carries the
 * worker's health there instead of in the worker item (report-progress.ts), so the worker's last
 * call is the latest of its item and its workflows.
 */
export const heardAt = (worker: WorkerHealth, at: EpochMs | undefined): WorkerHealth =>
  at === undefined || at <= worker.lastHealthAt ? worker : { ...worker, lastHealthAt: at };

/**
 * Healthchecks closer than this to the stored one (item or workflow, see `heardAt`) are not
 * written; the deadline allows for the lag, so a worker is never suspected early.
 */
export const HEALTH_WRITE_INTERVAL_MS = 1_000;

/** Base deadline plus every extension granted to it. */
export const healthDeadline = (worker: WorkerHealth, policy: TimeoutPolicy): EpochMs =>
  worker.lastHealthAt +
  HEALTH_WRITE_INTERVAL_MS +
  secondsToMs(policy.extensions.baseSeconds + worker.budget.totalSeconds);

/** The first moment a worker heard of no more is `failed` (workerStatus). */
export const failsAt = (worker: WorkerHealth, policy: TimeoutPolicy): EpochMs =>
  worker.failedAt ?? healthDeadline(worker, policy) + secondsToMs(policy.workerSuspicionSeconds) + 1;

export function workerStatus(worker: WorkerHealth, now: EpochMs, policy: TimeoutPolicy): WorkerStatus {
  if (worker.failedAt !== undefined) return 'failed';
  const deadline = healthDeadline(worker, policy);
  if (now <= deadline) return 'healthy';
  return now <= deadline + secondsToMs(policy.workerSuspicionSeconds) ? 'suspect' : 'failed';
}

export type HealthcheckWrite =
  | { kind: 'none' }
  /** Only `lastHealthAt` moves. */
  | { kind: 'touch' }
  /** The worker was failed and is back: `lastHealthAt` moves and failure is cleared, with `budget`. */
  | { kind: 'recover'; budget: ExtensionBudget };

/**
 * When a healthcheck gives a fresh extension budget (AD-26 `reset`, "when worker completes operation
 * or recovers"):
 * - failed (reported, or silent past its health deadline plus `workerSuspicionSeconds`) and back: a
 *   fresh budget; the old budget's grants are retired from every job;
 * - suspect (past its health deadline, within the suspicion window) and back: the SAME budget.
 *   Suspicion only denies extensions (AD-26 "denied if already suspect"); were it a reset, a worker
 *   could report just late each time and collect a new 58 s budget per recovery without limit;
 * - completed its work (its last active workflow got an outcome): a fresh budget, see `complete-workflow`.
 * `carriedByWorkflow`: this call's workflow write records it (`heardAt`), so the worker item is not touched.
 */
export function onHealthcheck(worker: WorkerHealth, now: EpochMs, policy: TimeoutPolicy, carriedByWorkflow = false): HealthcheckWrite {
  // Silent, an untouched budget still moves to the next epoch: a request that crashed before its
  // budget write may have left a grant on a job, which must not count again once the worker is back.
  // A reported failure already started the next epoch and retired everything older.
  if (workerStatus(worker, now, policy) === 'failed') return { kind: 'recover', budget: resetBudget(worker.budget, worker.failedAt === undefined) };
  // The workflow write records this call with no lag: no second write for the same fact.
  if (carriedByWorkflow) return { kind: 'none' };
  return now - worker.lastHealthAt >= HEALTH_WRITE_INTERVAL_MS ? { kind: 'touch' } : { kind: 'none' };
}
