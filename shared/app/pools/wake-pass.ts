import { onItemWakeUp } from '../../domain/pools/advance-attempt.js';
import type { Pool } from '../../domain/pools/pool.js';
import { afterWakeChunk } from '../../domain/pools/wake-pass.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideItem, decidePool } from './pool-state-stores.js';
import { readNextChunk, stepThrough } from './running-items-pass.js';

/**
 * One chunk of a stopped pool's wake pass (`Pool.wakePass`): the next running items after the pass's
 * place are each told to terminate now (their due transitions applied, as their own wake-ups would),
 * then the place moves past them and the next chunk is armed as a wake-up of its own. So no
 * invocation reaches more than a chunk, whatever the pool's size; one cut off leaves the place where
 * it was, and the pool's stored wake-up runs that chunk again (items it reached change no more).
 */
export async function wakeNextChunk(deps: ManagerDeps, pool: Pool): Promise<void> {
  if (!pool.wakePass) return;
  const now = deps.clock.now();
  const { items, chunk } = await readNextChunk(deps, pool.poolId, pool.wakePass);
  await stepThrough(items, (item) => decideItem(deps, pool.poolId, item.itemId, (current) => onItemWakeUp(current, pool, now), item));
  await decidePool(deps, pool.poolId, (current) => afterWakeChunk(current, chunk, deps.clock.now()), pool);
}
