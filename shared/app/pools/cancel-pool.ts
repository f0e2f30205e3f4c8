import { cancelPool as decideCancel } from '../../domain/pools/pool-decisions.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { onOwnPool } from './own-pool.js';
import { decidePool } from './pool-state-stores.js';
import { wakeNextChunk } from './wake-pass.js';

/**
 * `POST /pools/{poolId}/cancel`: every running agent is told to terminate. Each hears it at its next
 * call (which reads the pool); this call wakes the first chunk of running items, and the stop's wake
 * pass, written with the cancel, goes on a chunk per invocation.
 */
export async function cancelPool(deps: ManagerDeps, poolId: string, reason: string | undefined, tenant: string = DEFAULT_TENANT) {
  const pool = await decidePool(deps, poolId, onOwnPool(tenant, poolId, (current) => decideCancel(current, reason, deps.clock.now())));
  await wakeNextChunk(deps, pool);
  return { poolId, status: pool.status };
}
