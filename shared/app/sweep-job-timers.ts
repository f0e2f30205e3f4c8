import { fireManagerTimer } from './fire-manager-timer.js';
import { inBatches } from './in-batches.js';
import type { ManagerDeps } from './manager-deps.js';

/** Overdue by this much, a wake-up is presumed lost; until then its own delivery should arrive. */
export const SWEEP_GRACE_MS = 5_000;
const SWEEP_BATCH = 200;
export const SWEEP_CONCURRENCY = 8;

/**
 * The backstop: fires every job wake-up the sparse timer index says is overdue. A lost schedule,
 * a lost SQS message, a crash, or an emulator whose Scheduler never fires cannot leak a job.
 */
export async function sweepJobTimers(deps: ManagerDeps, graceMs = SWEEP_GRACE_MS): Promise<{ fired: number }> {
  const due = await deps.jobs.findDueTimers(deps.clock.now() - graceMs, SWEEP_BATCH);
  await inBatches(due, SWEEP_CONCURRENCY, (timer) => fireManagerTimer(deps, timer));
  if (due.length > 0) deps.telemetry.info('sweep fired overdue timers', { region: deps.region, fired: due.length });
  return { fired: due.length };
}

