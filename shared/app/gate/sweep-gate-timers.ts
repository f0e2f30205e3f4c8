import { inBatches } from '../in-batches.js';
import { SWEEP_CONCURRENCY, SWEEP_GRACE_MS } from '../sweep-job-timers.js';
import { fireGateTimer } from './fire-gate-timer.js';
import type { GateDeps } from './gate-deps.js';

const SWEEP_BATCH = 200;

/** The gate's backstop over its sparse timer index. */
export async function sweepGateTimers(deps: GateDeps, graceMs = SWEEP_GRACE_MS): Promise<{ fired: number }> {
  const due = await deps.gates.findDueTimers(deps.clock.now() - graceMs, SWEEP_BATCH);
  await inBatches(due, SWEEP_CONCURRENCY, (timer) => fireGateTimer(deps, timer));
  return { fired: due.length };
}
