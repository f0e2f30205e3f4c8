import { unchanged, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import { poolTimerId } from './pool-item.js';
import type { Pool } from './pool.js';
import { moveAfterChunk, passFromTheStart, type PassChunk } from './running-items-pass.js';

/**
 * The stop's wake pass begins, from the first running item. Its wake-up is stored but not armed:
 * the call that stopped the pool runs the first chunk itself, and if it is cut off first the sweep
 * finds the wake-up within the detection bound.
 */
export const withWakePass = (pool: Pool, now: EpochMs): Pool => ({ ...pool, wakePass: passFromTheStart(), timerDueAt: now });

/**
 * A chunk of the pass reached its items: the pass moves past them and its next chunk is armed as the
 * pool's wake-up, or it ends (`moveAfterChunk`).
 */
export function afterWakeChunk(pool: Pool, chunk: PassChunk, now: EpochMs): Decision<Pool> {
  const move = moveAfterChunk(pool.wakePass, chunk, poolTimerId(pool.poolId), now);
  switch (move.kind) {
    case 'already_done':
      return unchanged(pool, 'chunk_already_done');
    case 'over': {
      const { wakePass: _over, timerDueAt, ...rest } = pool;
      // An outbox still waiting for the bus keeps its retry.
      const keepsRetry = (pool.outbox?.length ?? 0) > 0 && timerDueAt !== undefined;
      return { state: keepsRetry ? { ...rest, timerDueAt } : rest, effects: [] };
    }
    case 'moved':
      return { state: { ...pool, wakePass: move.pass, timerDueAt: now }, effects: [move.nextChunk] };
  }
}
