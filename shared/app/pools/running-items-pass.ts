import type { PoolItem } from '../../domain/pools/pool-item.js';
import type { PassChunk, RunningItemsPass } from '../../domain/pools/running-items-pass.js';
import { inBatches } from '../in-batches.js';
import type { ManagerDeps } from '../manager-deps.js';

/**
 * Running items one invocation of a pass reaches. Each costs a consistent read and a write of an item
 * of up to ~110 KB: 25 of them are ~2,750 write units, under 3 s even where one partition's 1,000
 * units a second are all a pool gets, well within a swept fire's 8 s and a timer consumer's 30 s.
 */
export const PASS_CHUNK = 25;
const STEPS_AT_ONCE = 8;

/** The pass's next chunk: the running items after its place, and the last one reached (none when no running item follows: the pass is over). */
export async function readNextChunk(deps: ManagerDeps, poolId: string, pass: RunningItemsPass): Promise<{ items: PoolItem[]; chunk: PassChunk }> {
  const page = await deps.pools.itemsInState(poolId, 'running', deps.passChunk ?? PASS_CHUNK, pass.afterItemId);
  return { items: page.items, chunk: { from: pass.afterItemId, reached: page.more ? page.items.at(-1)?.itemId : undefined } };
}

/** The pass's step for each of a chunk's targets, a few at a time; every one is tried before a failure is thrown. */
export const stepThrough = <T>(targets: readonly T[], step: (target: T) => Promise<unknown>): Promise<void> =>
  inBatches(targets, STEPS_AT_ONCE, async (target) => {
    await step(target);
  });
