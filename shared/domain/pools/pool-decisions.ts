import { PoolFinished } from '../../events/pools/pool-finished.js';
import { metric, publish, unchanged, type Decision } from '../effects.js';
import { toIso, type EpochMs } from '../time.js';
import { withOpenedLately } from './item-census.js';
import { monitored } from './monitoring.js';
import { PoolFinishedError } from './pool-errors.js';
import type { Pool, PoolStatus } from './pool.js';
import { withWakePass } from './wake-pass.js';

export interface PoolCounts {
  available: number;
  running: number;
  succeeded: number;
  failed: number;
  skipped: number;
  dlq: number;
  escalated: number;
  /** Split items whose subtasks are not yet created (their follow-up pending): they hold the pool open too. Not shown. */
  splitsPending?: number;
  /** Items replaced by their subtasks: they settle nothing but are still the pool's items. Not shown. */
  split?: number;
}

/** A pool that FAILED or was CANCELLED starts its wake pass with the same write: its running attempts are owed `terminate` now. */
function finish(pool: Pool, status: Exclude<PoolStatus, 'RUNNING' | 'CREATING'>, now: EpochMs, reason?: string): Decision<Pool> {
  const finished: Pool = { ...pool, status, finishedAt: now, ...(reason ? { reason } : {}) };
  return {
    state: status === 'COMPLETED' ? finished : withWakePass(finished, now),
    effects: monitored(pool.config, [
      publish(PoolFinished.build({ poolId: pool.poolId, status, ...(reason ? { reason } : {}), finishedAt: toIso(now) })),
      metric('PoolFinished'),
    ]),
  };
}

/** COMPLETED when no item is available, running or escalated (contract). */
export function completeIfDone(pool: Pool, counts: PoolCounts, now: EpochMs): Decision<Pool> {
  if (pool.status !== 'RUNNING') return unchanged(pool, 'already_finished');
  if (counts.available + counts.running + counts.escalated + (counts.splitsPending ?? 0) > 0) return unchanged(pool, 'items_left');
  return finish(pool, 'COMPLETED', now);
}

/** `timeout_action: fail`: the pool FAILS at the timeout itself; running agents learn it at their next call or wake-up. */
export function failPool(pool: Pool, reason: string, now: EpochMs): Decision<Pool> {
  if (pool.status !== 'RUNNING') return unchanged(pool, 'already_finished');
  return finish(pool, 'FAILED', now, reason);
}

/**
 * A cancel sent again is answered as the first was and wakes the running attempts again: while the
 * stop's wake pass is under way it goes on (the pass reaches every item after its place), and once
 * it is over a new pass starts, which finds an attempt the first one's index read missed. A pool
 * that ended otherwise cannot be cancelled.
 */
export function cancelPool(pool: Pool, reason: string | undefined, now: EpochMs): Decision<Pool> {
  if (pool.status === 'CANCELLED') return pool.wakePass ? unchanged(pool, 'already_cancelled') : { state: withWakePass(pool, now), effects: [] };
  if (pool.status !== 'RUNNING') throw new PoolFinishedError(pool.poolId, pool.status);
  return finish(pool, 'CANCELLED', now, reason ?? 'cancelled by request');
}

/** Every item of a new pool is written: it becomes visible and claimable. */
export function openCreatedPool(pool: Pool): Decision<Pool> {
  if (pool.status !== 'CREATING') return unchanged(pool, 'already_open');
  return { state: { ...pool, status: 'RUNNING' }, effects: [] };
}

/** A redrive or an answer is refused in a pool that FAILED or was CANCELLED (a COMPLETED one runs again). */
export function assertReopenable(pool: Pool): void {
  if (pool.status !== 'RUNNING' && pool.status !== 'COMPLETED') throw new PoolFinishedError(pool.poolId, pool.status);
}

/**
 * The item a redrive or an answer made work again is written: a COMPLETED pool runs again. A pool
 * that failed or was cancelled since stays as it is (its end wins; the item is not claimed). The
 * items it opened are remembered a while: the pool's index may not show them open yet. A reopening
 * that comes late (a slow or repeated follow-up) may find the work it brought back already done
 * (`workLeft` false: none of its items is open any more): a COMPLETED pool then stays so.
 */
export function reopenPool(pool: Pool, opened: { itemIds: readonly string[]; at: EpochMs; workLeft?: boolean } = { itemIds: [], at: 0 }): Decision<Pool> {
  const reopens = (pool.reopens ?? 0) + 1;
  const remembered = opened.itemIds.length > 0 ? withOpenedLately(pool, opened.itemIds, opened.at) : {};
  if (pool.status === 'RUNNING') return { state: { ...pool, reopens, ...remembered }, effects: [] };
  if (pool.status !== 'COMPLETED') return unchanged(pool, 'not_completed');
  if (opened.workLeft === false) return unchanged(pool, 'work_already_done');
  const { finishedAt: _reopened, ...rest } = pool;
  return { state: { ...rest, status: 'RUNNING', reopens, ...remembered }, effects: [] };
}
