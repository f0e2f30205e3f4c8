import { wakeForStoppedPool } from '../../domain/pools/item-wake-up.js';
import type { Pool } from '../../domain/pools/pool.js';
import { inBatches } from '../in-batches.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideItem } from './pool-state-stores.js';

/** How many running items a pool may have that one call wakes (agents are far fewer than items). */
const MAX_RUNNING = 10_000;
const WAKE_CONCURRENCY = 8;

/**
 * The pool failed or was cancelled: wake every running item now, so each attempt is told to
 * terminate and its grace period starts, instead of waiting for its next deadline or window.
 * Each early wake-up is written to its item before it is armed, so a lost one is swept like any other.
 */
export async function wakeRunningItems(deps: ManagerDeps, pool: Pool): Promise<void> {
  if (pool.status === 'RUNNING') return;
  const { items } = await deps.pools.itemsInState(pool.poolId, 'running', MAX_RUNNING);
  const now = deps.clock.now();
  await inBatches(items, WAKE_CONCURRENCY, async (item) => {
    await decideItem(deps, pool.poolId, item.itemId, (current) => wakeForStoppedPool(current, now), item);
  });
}
