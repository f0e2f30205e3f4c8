import { onItemWakeUp } from '../../domain/pools/advance-attempt.js';
import { isPoolTimerId, parseCollectionTimerId, parseItemTimerId, type PoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { EpochMs } from '../../domain/time.js';
import type { TimerRequest } from '../../ports/timers.js';
import { backOffFailedWakeUp, flushOutbox } from '../decide-and-save.js';
import type { ManagerDeps } from '../manager-deps.js';
import { collectNextChunk } from './collection-pass.js';
import { runFollowUps } from './follow-ups.js';
import { collectionStateStore, decideItem, itemStateStore, poolStore } from './pool-state-stores.js';
import { decidedAgainIfStopped } from './stopped-since-read.js';
import { wakeNextChunk } from './wake-pass.js';

/**
 * A pool item's wake-up arrived (SQS, the local scheduler or the sweep): publish what a crash left
 * in the outbox, finish its follow-ups, then apply whatever is due (deadlines, checkpoint windows,
 * the grace period's end). A wake-up for an older attempt changes nothing.
 */
export async function firePoolTimer(deps: ManagerDeps, timer: TimerRequest, from: 'queue' | 'sweep' = 'queue'): Promise<void> {
  // From the sweep, an outbox-only entry's retry is written before the publish (`flushOutbox`).
  const claimFirst = from === 'sweep';
  if (isPoolTimerId(timer.jobId)) return firePoolWakeUp(deps, timer, claimFirst);
  const collection = parseCollectionTimerId(timer.jobId);
  if (collection) return fireCollectionWakeUp(deps, collection, timer);
  const ids = parseItemTimerId(timer.jobId);
  if (!ids) return;
  const [pool, loaded] = await Promise.all([deps.pools.getPool(ids.poolId), deps.pools.getItem(ids.poolId, ids.itemId)]);
  if (!pool || !loaded) return;
  if (timer.fenceToken < loaded.attempt) {
    deps.telemetry.info('stale pool timer dropped', { poolId: ids.poolId, itemId: ids.itemId, attempt: timer.fenceToken });
    return;
  }
  let item = await flushOutbox(itemStateStore(deps.pools, ids.poolId), deps, loaded, deps.clock.now(), false, claimFirst);
  item = await runFollowUps(deps, item, pool);
  const now = deps.clock.now();
  let poolAsLastRead = pool;
  const wakeUpWith = (read: Pool) => (stored: PoolItem) => onItemWakeUp(stored, read, now);
  const again = decidedAgainIfStopped(deps, pool, wakeUpWith, (stopped) => (poolAsLastRead = stopped));
  const { item: decided } = await decideItem(deps, ids.poolId, ids.itemId, wakeUpWith(pool), item, again);
  // The item's own wake-up, delivered early (a schedule fires ahead of a wake-up past SQS's 15
  // minutes) with nothing due: sent again for its time, or it would be left to the sweep.
  const ownWakeUp = timer.fenceToken === decided.attempt && timer.dueAt === decided.timerDueAt;
  if (ownWakeUp && now < timer.dueAt) await deps.timers.arm(timer);
  await runFollowUps(deps, decided, poolAsLastRead);
}

/**
 * The pool's own wake-up: its outbox, left by a crash or a bus outage, published (or retried later),
 * and the next chunk of its wake pass run. Only the pass's current wake-up runs a chunk: an older one
 * (delivered twice, or its chunk done since) would repeat the chunk beside it.
 */
async function firePoolWakeUp(deps: ManagerDeps, timer: TimerRequest, claimFirst: boolean): Promise<void> {
  const pool = await deps.pools.getPool(timer.jobId);
  if (!pool) return;
  const flushed = await flushOutbox(poolStore(deps.pools), deps, pool, deps.clock.now(), false, claimFirst);
  if (flushed.timerDueAt === timer.dueAt) await wakeNextChunk(deps, flushed);
}

/** A checkpoint collection's wake-up runs the next chunk of its pass; as for the pool's, only the current one does. */
async function fireCollectionWakeUp(deps: ManagerDeps, ids: { poolId: string; collectionId: string }, timer: TimerRequest): Promise<void> {
  const collection = await deps.pools.getCollection(ids.poolId, ids.collectionId);
  if (collection && collection.timerDueAt === timer.dueAt) await collectNextChunk(deps, collection);
}

/** The sweep could not fire a pool's, a collection's or an item's wake-up: move it to `dueAfter` (the sweep's rule). */
export async function backOffPoolWakeUp(deps: ManagerDeps, timer: TimerRequest, dueAfter: (timerFailures: number) => EpochMs): Promise<void> {
  if (isPoolTimerId(timer.jobId)) return backOffFailedWakeUp(poolStore(deps.pools), timer.jobId, timer.dueAt, dueAfter);
  const collection = parseCollectionTimerId(timer.jobId);
  if (collection) return backOffFailedWakeUp(collectionStateStore(deps.pools, collection.poolId), collection.collectionId, timer.dueAt, dueAfter);
  const ids = parseItemTimerId(timer.jobId);
  if (ids) await backOffFailedWakeUp(itemStateStore(deps.pools, ids.poolId), ids.itemId, timer.dueAt, dueAfter);
}
