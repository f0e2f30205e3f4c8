import type { Job } from '../domain/job.js';
import type { EpochMs } from '../domain/time.js';
import { failsAt, workerStatus, type WorkerHealth } from '../domain/worker-health.js';
import { currentWorkerHealth } from './current-worker-health.js';
import type { ManagerDeps } from './manager-deps.js';

export interface GrantsInForce {
  /** Grants on the job that no longer count (see `retiredGrantsOf`). */
  retired: Array<{ workerIndex: number; epochBefore: number }>;
  /** The earliest moment a worker whose grant still counts would be failed if it stays silent. */
  lapseAt?: EpochMs;
}

/**
 * Seed 001 §10.7.9 and AD-26 `reset`: grants whose worker has failed since, or has a fresh budget
 * since, must not keep the job alive, even where the retiring walk never got (a crash); and when
 * the others' workers would fail if silent. A worker with no item is not failed: its first grant was
 * applied before its item's first write.
 */
export async function grantsInForce(deps: ManagerDeps, job: Job, known: ReadonlyMap<string, WorkerHealth> = new Map()): Promise<GrantsInForce> {
  if (job.tracking.workersWithExtensions === 0) return { retired: [] };
  const now = deps.clock.now();
  const records = await deps.jobs.findGrantRecords(job.jobId, job.incarnation);
  // Each worker's health with its workflows folded in: a worker whose reports write only its workflows is not failed.
  const healths = await Promise.all(records.map((record) => known.get(record.workerId) ?? currentWorkerHealth(deps, record.workerId)));
  const workers = new Map(healths.flatMap((w) => (w ? [[w.workerId, w] as const] : [])));
  const retired: GrantsInForce['retired'] = [];
  let lapseAt: EpochMs | undefined;
  for (const record of records) {
    const worker = workers.get(record.workerId);
    if (!worker) continue;
    const failed = workerStatus(worker, now, deps.policy) === 'failed';
    retired.push({ workerIndex: record.workerIndex, epochBefore: failed ? Number.MAX_SAFE_INTEGER : worker.budget.epoch });
    if (!failed) lapseAt = Math.min(lapseAt ?? Infinity, failsAt(worker, deps.policy));
  }
  return { retired, ...(lapseAt !== undefined ? { lapseAt } : {}) };
}

export const retiredGrantsOf = async (deps: ManagerDeps, job: Job, known?: ReadonlyMap<string, WorkerHealth>) => (await grantsInForce(deps, job, known)).retired;
