import { cancelPool as decideCancel } from '../../domain/pools/pool-decisions.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { onOwnPool } from './own-pool.js';
import { decidePool } from './pool-state-stores.js';
import { wakeRunningItems } from './wake-running-items.js';

/** `POST /pools/{poolId}/cancel`: every running agent is told to terminate (its items wake at once). */
export async function cancelPool(deps: ManagerDeps, poolId: string, reason: string | undefined, tenant: string = DEFAULT_TENANT) {
  const pool = await decidePool(deps, poolId, onOwnPool(tenant, poolId, (current) => decideCancel(current, reason, deps.clock.now())));
  await wakeRunningItems(deps, pool);
  return { poolId, status: pool.status };
}
