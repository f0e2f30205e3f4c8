import type { Decision } from '../../domain/effects.js';
import { PoolNotFoundError } from '../../domain/pools/pool-errors.js';
import type { Pool } from '../../domain/pools/pool.js';
import { ownedBy } from '../../domain/tenant.js';

/**
 * The pool if the caller's tenant owns it. Another tenant's pool answers exactly as a missing one
 * (404, same body) and nothing is changed. A pool's tenant is written once, by the create-only put,
 * and pools are never deleted, so a pool checked here stays the caller's for its items' writes too.
 */
export function ownPool(pool: Pool | undefined, tenant: string, poolId: string): Pool {
  if (!pool || !ownedBy(pool, tenant)) throw new PoolNotFoundError(poolId);
  return pool;
}

/** A decision only on the caller's own pool, checked on the very state the conditional write is based on. */
export const onOwnPool =
  (tenant: string, poolId: string, decide: (pool: Pool) => Decision<Pool>) =>
  (pool: Pool): Decision<Pool> =>
    decide(ownPool(pool, tenant, poolId));
