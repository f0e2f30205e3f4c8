import { countStates, forgotOpenedLately, holdsPoolOpen, openedLately, type ItemStateEntry } from '../../domain/pools/item-census.js';
import type { PoolCounts } from '../../domain/pools/pool-decisions.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { ManagerDeps } from '../manager-deps.js';

/** Suspects read back at first; each further read takes twice as many, so a lagging index costs reads in proportion to its lag. */
const FIRST_SUSPECTS = 1;

/**
 * The pool's counts, as its completion may trust them. They come from the pool's index (small
 * entries: a few pages for any pool, whatever its items hold), which may lag the writes by a moment
 * both ways, so:
 * - an item the index shows open (available, running, escalated, a split awaiting its subtasks) is
 *   read back from the table, a few first, until one is open there: a pool is not left RUNNING
 *   because the index still shows its last item running;
 * - an item a redrive or an answer opened lately (the pool remembers which) is read back too, and so
 *   is every other the index may not show yet: a pool does not complete over an item it shows settled;
 * - a pool whose index shows fewer items than it was created with, or that opened more items lately
 *   than it remembers, is counted on the table itself (its index cannot yet show every item).
 */
export async function countPoolItems(deps: ManagerDeps, pool: Pool): Promise<PoolCounts> {
  const now = deps.clock.now();
  if (forgotOpenedLately(pool, now)) return countStates(await deps.pools.itemStates(pool.poolId, 'table'));
  const entries = new Map((await deps.pools.itemStates(pool.poolId, 'index')).map((entry) => [entry.itemId, entry]));
  const suspects = [...new Set([...openedLately(pool, now), ...[...entries.values()].filter(holdsPoolOpen).map((entry) => entry.itemId)])];
  for (let start = 0, size = FIRST_SUSPECTS; start < suspects.length; start += size, size *= 2) {
    const read: ItemStateEntry[] = await deps.pools.readItemStates(pool.poolId, suspects.slice(start, start + size));
    for (const entry of read) entries.set(entry.itemId, entry);
    if (read.some(holdsPoolOpen)) return countStates(entries.values());
  }
  if (entries.size < pool.itemCount) return countStates(await deps.pools.itemStates(pool.poolId, 'table'));
  return countStates(entries.values());
}
