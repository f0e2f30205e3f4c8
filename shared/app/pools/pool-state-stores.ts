import { decideAndSave, type Reconsider, type VersionedStore } from '../decide-and-save.js';
import type { Decision } from '../../domain/effects.js';
import type { CheckpointCollection } from '../../domain/pools/checkpoint-collection.js';
import { CollectionNotFoundError, ItemNotFoundError, PoolNotFoundError } from '../../domain/pools/pool-errors.js';
import type { Pool } from '../../domain/pools/pool.js';
import { collectionTimerId, isItemIdle, itemTimerId, poolTimerId, type PoolItem } from '../../domain/pools/pool-item.js';
import { withoutSupersededCheckpointEvents } from '../../domain/pools/superseded-checkpoint-events.js';
import type { PoolStore } from '../../ports/pool-store.js';
import type { ManagerDeps } from '../manager-deps.js';
import { ownPool } from './own-pool.js';

export const itemStateStore = (pools: PoolStore, poolId: string): VersionedStore<PoolItem> => ({
  load: (itemId) => pools.getItem(poolId, itemId),
  save: (item, expectedVersion) => pools.saveItem(item, expectedVersion),
  // An item needs a wake-up while an attempt runs or follow-ups wait; otherwise only for its outbox.
  isFinished: isItemIdle,
  compactOutbox: withoutSupersededCheckpointEvents,
  retryWakeUp: (item, dueAt) => ({ scope: 'pool', jobId: itemTimerId(item.poolId, item.itemId), fenceToken: item.attempt, dueAt }),
});

/** A pool still being created does not exist yet for anyone but its creator. */
const visible = (pool: Pool | undefined): Pool | undefined => (pool?.status === 'CREATING' ? undefined : pool);

/**
 * A pool's wake-up runs the next chunk of its wake pass while a stop's pass is under way; otherwise it
 * only retries its outbox, as a finished job's does: every decision that adds events sets one, and the
 * publish that empties the outbox clears it, so an outbox left by a crash or a bus outage is published
 * by the sweep (`firePoolWakeUp`), whoever reads the pool.
 */
export const poolStore = (pools: PoolStore): VersionedStore<Pool> => ({
  load: async (poolId) => visible(await pools.getPool(poolId)),
  save: (pool, expectedVersion) => pools.savePool(pool, expectedVersion),
  isFinished: (pool) => pool.wakePass === undefined,
  retryWakeUp: (pool, dueAt) => ({ scope: 'pool', jobId: poolTimerId(pool.poolId), fenceToken: 0, dueAt }),
});

/** A collection's wake-up runs the next chunk of its pass; it publishes through no outbox, so once the pass is over it has none. */
export const collectionStateStore = (pools: PoolStore, poolId: string): VersionedStore<CheckpointCollection> => ({
  load: (collectionId) => pools.getCollection(poolId, collectionId),
  save: (collection, expectedVersion) => pools.saveCollection(collection, expectedVersion),
  isFinished: (collection) => collection.pass === undefined,
  retryWakeUp: (collection, dueAt) => ({ scope: 'pool', jobId: collectionTimerId(poolId, collection.collectionId), fenceToken: 0, dueAt }),
});

/** `decideAndSave` for one pool item: load, decide, one conditional write with its outbox, effects. */
export async function decideItem<D extends Decision<PoolItem>>(
  deps: ManagerDeps,
  poolId: string,
  itemId: string,
  decide: (item: PoolItem) => D,
  alreadyLoaded?: PoolItem,
  reconsider?: (stored: PoolItem) => Promise<((item: PoolItem) => D) | undefined>,
): Promise<{ item: PoolItem; decision: D }> {
  let last: D | undefined;
  const decideAgain: Reconsider<PoolItem> | undefined =
    reconsider &&
    (async (stored) => {
      const instead = await reconsider(stored);
      return instead && ((item) => (last = instead(item)));
    });
  const { state } = await decideAndSave(
    itemStateStore(deps.pools, poolId),
    deps,
    itemId,
    () => deps.clock.now(),
    (item) => (last = decide(item)),
    () => new ItemNotFoundError(poolId, itemId),
    alreadyLoaded,
    decideAgain,
  );
  if (!last) throw new Error('decideAndSave returned without deciding');
  return { item: state, decision: last };
}

export async function decidePool(deps: ManagerDeps, poolId: string, decide: (pool: Pool) => Decision<Pool>, alreadyLoaded?: Pool) {
  const { state } = await decideAndSave(
    poolStore(deps.pools),
    deps,
    poolId,
    () => deps.clock.now(),
    decide,
    () => new PoolNotFoundError(poolId),
    alreadyLoaded,
  );
  return state;
}

export function decideCollection(
  deps: ManagerDeps,
  collection: Pick<CheckpointCollection, 'poolId' | 'collectionId'>,
  decide: (collection: CheckpointCollection) => Decision<CheckpointCollection>,
  alreadyLoaded?: CheckpointCollection,
) {
  const { poolId, collectionId } = collection;
  return decideAndSave(
    collectionStateStore(deps.pools, poolId),
    deps,
    collectionId,
    () => deps.clock.now(),
    decide,
    () => new CollectionNotFoundError(collectionId),
    alreadyLoaded,
  );
}

export async function loadPool(deps: ManagerDeps, poolId: string): Promise<Pool> {
  const pool = visible(await deps.pools.getPool(poolId));
  if (!pool) throw new PoolNotFoundError(poolId);
  return pool;
}

export async function loadItem(deps: ManagerDeps, poolId: string, itemId: string): Promise<PoolItem> {
  const item = await deps.pools.getItem(poolId, itemId);
  if (!item) throw new ItemNotFoundError(poolId, itemId);
  return item;
}

/** `loadPool` for a client call: another tenant's pool is missing. */
export async function loadOwnPool(deps: ManagerDeps, poolId: string, tenant: string): Promise<Pool> {
  return ownPool(await loadPool(deps, poolId), tenant, poolId);
}
