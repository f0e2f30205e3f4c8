import { wakeForStoppedPool } from '../../domain/pools/item-wake-up.js';
import type { Pool } from '../../domain/pools/pool.js';
import { inBatches } from '../in-batches.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideItem } from './pool-state-stores.js';

/** Running items read and woken at a time: the pool's running items are paged, however many agents it has. */
const WAKE_PAGE = 100;
const WAKE_CONCURRENCY = 8;

/**
 * The pool failed or was cancelled: wake every running item now, so each attempt is told to
 * terminate and its grace period starts, instead of waiting for its next deadline or window.
 * Each early wake-up is written to its item before it is armed, so a lost one is swept like any other.
 */
export async function wakeRunningItems(deps: ManagerDeps, pool: Pool): Promise<void> {
  if (pool.status === 'RUNNING') return;
  const now = deps.clock.now();
  let after: string | undefined;
  do {
    const page = await deps.pools.itemsInState(pool.poolId, 'running', WAKE_PAGE, after);
    await inBatches(page.items, WAKE_CONCURRENCY, async (item) => {
      await decideItem(deps, pool.poolId, item.itemId, (current) => wakeForStoppedPool(current, now), item);
    });
    after = page.more ? page.items.at(-1)?.itemId : undefined;
  } while (after !== undefined);
}
