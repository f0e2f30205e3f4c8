import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { onOwnPool } from './own-pool.js';
import { completePoolIfDone } from './complete-pool-if-done.js';
import { loadItem, loadOwnPool } from './pool-state-stores.js';
import { itemView, poolView } from './pool-views.js';

/**
 * `GET /pools/{poolId}`: counts derived by query. A RUNNING pool whose items are all settled is
 * completed here too, which repairs a completion a crash interrupted.
 */
export async function getPool(deps: ManagerDeps, poolId: string, tenant: string = DEFAULT_TENANT) {
  const { pool, counts } = await completePoolIfDone(deps, await loadOwnPool(deps, poolId, tenant), (decide) => onOwnPool(tenant, poolId, decide));
  return poolView(pool, counts);
}

export async function getItem(deps: ManagerDeps, poolId: string, itemId: string, tenant: string = DEFAULT_TENANT) {
  await loadOwnPool(deps, poolId, tenant);
  return itemView(await loadItem(deps, poolId, itemId));
}
