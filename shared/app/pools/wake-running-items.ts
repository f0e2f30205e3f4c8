import { itemTimerId } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { ManagerDeps } from '../manager-deps.js';

/** How many running items a pool may have that one call wakes (agents are far fewer than items). */
const MAX_RUNNING = 10_000;

/**
 * The pool failed or was cancelled: wake every running item now, so each attempt is told to
 * terminate and its grace period starts, instead of waiting for its next deadline or window.
 */
export async function wakeRunningItems(deps: ManagerDeps, pool: Pool): Promise<void> {
  if (pool.status === 'RUNNING') return;
  const { items } = await deps.pools.itemsInState(pool.poolId, 'running', MAX_RUNNING);
  const now = deps.clock.now();
  for (const item of items) {
    await deps.timers.arm({ scope: 'pool', jobId: itemTimerId(item.poolId, item.itemId), fenceToken: item.attempt, dueAt: now });
  }
}
