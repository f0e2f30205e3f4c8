import { unchanged, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import { poolTimerId } from './pool-item.js';
import type { Pool } from './pool.js';

/**
 * The stop's wake pass begins, from the first running item. Its wake-up is stored but not armed:
 * the call that stopped the pool runs the first chunk itself, and if it is cut off first the sweep
 * finds the wake-up within the detection bound.
 */
export const withWakePass = (pool: Pool, now: EpochMs): Pool => ({ ...pool, wakePass: {}, timerDueAt: now });

export interface WakeChunk {
  /** Where the chunk started: the pass's place when it read its items. */
  from: string | undefined;
  /** The last item it reached, or none when no running item follows it: the pass is over. */
  reached: string | undefined;
}

/**
 * A chunk of the pass reached its items: the pass moves past them and its next chunk is armed as a
 * wake-up of its own, or it ends. A chunk whose place the pass already left (a second delivery, a
 * chunk run beside it by a repeated cancel) changes nothing, so no chunk is skipped or counted twice.
 */
export function afterWakeChunk(pool: Pool, chunk: WakeChunk, now: EpochMs): Decision<Pool> {
  if (!pool.wakePass || pool.wakePass.afterItemId !== chunk.from) return unchanged(pool, 'chunk_already_done');
  if (chunk.reached === undefined) {
    const { wakePass: _over, timerDueAt, ...rest } = pool;
    // An outbox still waiting for the bus keeps its retry.
    const keepsRetry = (pool.outbox?.length ?? 0) > 0 && timerDueAt !== undefined;
    return { state: keepsRetry ? { ...rest, timerDueAt } : rest, effects: [] };
  }
  return {
    state: { ...pool, wakePass: { afterItemId: chunk.reached }, timerDueAt: now },
    effects: [{ type: 'ArmTimer', timer: { scope: 'pool', jobId: poolTimerId(pool.poolId), fenceToken: 0, dueAt: now } }],
  };
}
