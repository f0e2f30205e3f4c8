import { completeIfDone } from '../../domain/pools/pool-decisions.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { onOwnPool } from './own-pool.js';
import { decidePool, loadItem, loadOwnPool } from './pool-state-stores.js';
import { itemView, poolView } from './pool-views.js';

/**
 * `GET /pools/{poolId}`: counts derived by query. A RUNNING pool whose items are all settled is
 * completed here too, which repairs a completion a crash interrupted.
 */
export async function getPool(deps: ManagerDeps, poolId: string, tenant: string = DEFAULT_TENANT) {
  let pool = await loadOwnPool(deps, poolId, tenant);
  const counts = await deps.pools.countItems(poolId);
  if (pool.status === 'RUNNING') pool = await decidePool(deps, poolId, onOwnPool(tenant, poolId, (current) => completeIfDone(current, counts, deps.clock.now())), pool);
  return poolView(pool, counts);
}

export async function getItem(deps: ManagerDeps, poolId: string, itemId: string, tenant: string = DEFAULT_TENANT) {
  await loadOwnPool(deps, poolId, tenant);
  return itemView(await loadItem(deps, poolId, itemId));
}
