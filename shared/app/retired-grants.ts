import type { Job } from '../domain/job.js';
import { workerStatus } from '../domain/worker-health.js';
import { currentWorkerHealth } from './current-worker-health.js';
import type { ManagerDeps } from './manager-deps.js';

/**
 * Seed 001 §10.7.9 and AD-26 `reset`: grants whose worker has failed since, or has a fresh budget
 * since, must not keep the job alive, even where the retiring walk never got (a crash). A worker with
 * no item is not failed: its first grant was applied before its item's first write (finding 7).
 */
export async function retiredGrantsOf(deps: ManagerDeps, job: Job): Promise<Array<{ workerIndex: number; epochBefore: number }>> {
  if (job.tracking.workersWithExtensions === 0) return [];
  const now = deps.clock.now();
  const records = await deps.jobs.findGrantRecords(job.jobId, job.incarnation);
  // Each worker's health with its workflows folded in: a worker whose reports write only its workflows is not failed.
  const healths = await Promise.all(records.map((record) => currentWorkerHealth(deps, record.workerId)));
  const workers = new Map(healths.flatMap((w) => (w ? [[w.workerId, w] as const] : [])));
  return records.flatMap((record) => {
    const worker = workers.get(record.workerId);
    if (!worker) return [];
    const failed = workerStatus(worker, now, deps.policy) === 'failed';
    return [{ workerIndex: record.workerIndex, epochBefore: failed ? Number.MAX_SAFE_INTEGER : worker.budget.epoch }];
  });
}
