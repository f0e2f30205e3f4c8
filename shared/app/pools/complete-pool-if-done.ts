import { unchanged, type Decision } from '../../domain/effects.js';
import { completeIfDone } from '../../domain/pools/pool-decisions.js';
import type { PoolCounts } from '../../domain/pools/pool-decisions.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { OutboxState } from '../decide-and-save.js';
import type { ManagerDeps } from '../manager-deps.js';
import { countPoolItems } from './count-pool-items.js';
import { decidePool } from './pool-state-stores.js';

/** Counts taken again when the pool changed between its read and the completion's write. */
const MAX_COUNTS = 5;

/**
 * Completes a RUNNING pool whose items are all settled. The count is taken after the pool is read,
 * and the completion is written only on the version read: an item brought back meanwhile (a
 * redrive, an answer) moves the pool's version by its reopening, so a completion counted before it
 * never lands on a pool that has work again (review finding). `guard` wraps the decision (the caller's tenant check).
 */
export async function completePoolIfDone(
  deps: ManagerDeps,
  read: Pool,
  guard: (decide: (pool: Pool) => Decision<Pool>) => (pool: Pool) => Decision<Pool> = (decide) => decide,
): Promise<{ pool: Pool; counts: PoolCounts }> {
  let pool = read;
  for (let count = 1; ; count++) {
    const counts = await countPoolItems(deps, pool);
    if (pool.status !== 'RUNNING') {
      // A completion cut off between its write and its publish left PoolFinished in the outbox: the
      // repeated follow-up (or a GET) publishes it at once, before the pool's own retry wake-up would.
      if (((pool as OutboxState).outbox ?? []).length > 0) pool = await decidePool(deps, pool.poolId, guard((current) => unchanged(current, 'already_finished')), pool);
      return { pool, counts };
    }
    const counted = pool;
    let changed = false;
    pool = await decidePool(
      deps,
      pool.poolId,
      guard((current) => {
        if (current.version === counted.version) return completeIfDone(current, counts, deps.clock.now());
        changed = true;
        return unchanged(current, 'changed_since_counted');
      }),
      counted,
    );
    if (!changed || count >= MAX_COUNTS) return { pool, counts: changed ? await countPoolItems(deps, pool) : counts };
  }
}
