import type { Decision } from '../../domain/effects.js';
import { poolIsStopped, type Pool } from '../../domain/pools/pool.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import type { ManagerDeps } from '../manager-deps.js';

/**
 * An item's write decided on its pool as read RUNNING may land after the pool stopped: the item's
 * write cannot be conditional on the pool item, and the stop's wake pass may not have reached the
 * item yet. So once the write has landed the pool is read again, and if it stopped meanwhile the
 * decision is made again with the stopped pool over that write (`decideItem`'s `reconsider`), as
 * a call or wake-up after the stop would have made it: the stop applies from its own moment (a
 * deadline after it is no timeout), and nothing the first decision wrote or published outlives it
 * (a completion, a give-back's escalation, a command's start). `onStopped` learns the pool as read
 * again. A pool read stopped needs no second read.
 */
export function decidedAgainIfStopped<D extends Decision<PoolItem>>(
  deps: ManagerDeps,
  read: Pool,
  decideWith: (pool: Pool) => (item: PoolItem) => D,
  onStopped: (pool: Pool) => void = () => undefined,
): ((stored: PoolItem) => Promise<((item: PoolItem) => D) | undefined>) | undefined {
  if (poolIsStopped(read)) return undefined;
  return async () => {
    const pool = await deps.pools.getPool(read.poolId);
    if (!pool || !poolIsStopped(pool)) return undefined;
    onStopped(pool);
    return decideWith(pool);
  };
}
