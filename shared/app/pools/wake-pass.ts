import { onItemWakeUp } from '../../domain/pools/advance-attempt.js';
import type { Pool } from '../../domain/pools/pool.js';
import { afterWakeChunk } from '../../domain/pools/wake-pass.js';
import { inBatches } from '../in-batches.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideItem, decidePool } from './pool-state-stores.js';

/**
 * Running items one invocation reaches. Each costs a consistent read and a write of an item of up to
 * ~110 KB: 25 of them are ~2,750 write units, under 3 s even where one partition's 1,000 units a
 * second are all a pool gets, well within a swept fire's 8 s and a timer consumer's 30 s.
 */
export const WAKE_CHUNK = 25;
const WAKE_CONCURRENCY = 8;

/**
 * One chunk of a stopped pool's wake pass (`Pool.wakePass`): the next running items after the pass's
 * place are each told to terminate now (their due transitions applied, as their own wake-ups would),
 * then the place moves past them and the next chunk is armed as a wake-up of its own. So no
 * invocation reaches more than a chunk, whatever the pool's size; one cut off leaves the place where
 * it was, and the pool's stored wake-up runs that chunk again (items it reached change no more).
 */
export async function wakeNextChunk(deps: ManagerDeps, pool: Pool): Promise<void> {
  if (!pool.wakePass) return;
  const from = pool.wakePass.afterItemId;
  const now = deps.clock.now();
  const page = await deps.pools.itemsInState(pool.poolId, 'running', deps.wakeChunk ?? WAKE_CHUNK, from);
  await inBatches(page.items, WAKE_CONCURRENCY, async (item) => {
    await decideItem(deps, pool.poolId, item.itemId, (current) => onItemWakeUp(current, pool, now), item);
  });
  const reached = page.more ? page.items.at(-1)?.itemId : undefined;
  await decidePool(deps, pool.poolId, (current) => afterWakeChunk(current, { from, reached }, deps.clock.now()), pool);
}
