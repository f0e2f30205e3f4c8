import { freshBudget, type ExtensionBudget } from './extension-budget.js';
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
 * Healthchecks closer than this to the stored one are not written; the deadline allows for the
 * lag, so a worker is never suspected early.
 */
export const HEALTH_WRITE_INTERVAL_MS = 1_000;

/** Base deadline plus every extension granted to it. */
export const healthDeadline = (worker: WorkerHealth, policy: TimeoutPolicy): EpochMs =>
  worker.lastHealthAt +
  HEALTH_WRITE_INTERVAL_MS +
  secondsToMs(policy.extensions.baseSeconds + worker.budget.totalSeconds);

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
  /** The worker was suspect or failed and is back: a fresh extension budget (AD-26 `reset`). */
  | { kind: 'recover'; worker: WorkerHealth };

export function onHealthcheck(worker: WorkerHealth, now: EpochMs, policy: TimeoutPolicy): HealthcheckWrite {
  if (workerStatus(worker, now, policy) !== 'healthy') {
    const { failedAt: _recovered, ...rest } = worker;
    return { kind: 'recover', worker: { ...rest, lastHealthAt: now, budget: freshBudget(worker.budget.epoch + 1) } };
  }
  return now - worker.lastHealthAt >= HEALTH_WRITE_INTERVAL_MS ? { kind: 'touch' } : { kind: 'none' };
}
