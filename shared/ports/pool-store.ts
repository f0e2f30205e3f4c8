import type { PoolCounts } from '../domain/pools/pool-decisions.js';
import type { Pool } from '../domain/pools/pool.js';
import type { ItemState, PoolItem } from '../domain/pools/pool-item.js';
import type { EpochMs } from '../domain/time.js';

/** A checkpoint collection (seed 002 compaction): who was asked, until when. */
export interface CheckpointCollection {
  poolId: string;
  collectionId: string;
  startedAt: EpochMs;
  until: EpochMs;
  agents: Array<{ agentId: string; itemId: string; attempt: number }>;
}

/** Where `GET /escalations` finds questions across pools; the item holds the question's state. */
export interface EscalationPointer {
  escalationId: string;
  poolId: string;
  itemId: string;
  askedAt: EpochMs;
}

export interface ItemPage {
  items: PoolItem[];
  nextToken?: string;
}

/**
 * Pools on the regional table: one item per pool and one per pool item; every change is a
 * conditional write on the item's version. Counts and metrics are derived by query, so no pool
 * item is a write hot spot.
 */
export interface PoolStore {
  getPool(poolId: string): Promise<Pool | undefined>;
  /** Writes the items, then the pool only if none with that id exists; else returns the existing pool and writes nothing more. */
  createPool(pool: Pool, items: readonly PoolItem[]): Promise<{ created: true; pool: Pool } | { created: false; existing: Pool }>;
  savePool(pool: Pool, expectedVersion: number): Promise<Pool>;
  getItem(poolId: string, itemId: string): Promise<PoolItem | undefined>;
  saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem>;
  /** Creates each item unless one with its id exists (a split's subtasks, idempotently). */
  createItems(items: readonly PoolItem[]): Promise<void>;
  /** Up to `limit` items in that state (a claim's candidates, the DLQ page). */
  itemsInState(poolId: string, state: ItemState, limit: number, nextToken?: string): Promise<ItemPage>;
  countItems(poolId: string): Promise<PoolCounts>;
  /** Every item's metric counters, page by page (only `itemId` and `stats` are read). */
  itemStats(poolId: string, nextToken?: string): Promise<{ items: Array<Pick<PoolItem, 'itemId' | 'stats'>>; nextToken?: string }>;
  putEscalationPointer(pointer: EscalationPointer): Promise<void>;
  listEscalationPointers(poolId?: string): Promise<EscalationPointer[]>;
  getItems(keys: ReadonlyArray<{ poolId: string; itemId: string }>): Promise<PoolItem[]>;
  putCollection(collection: CheckpointCollection): Promise<void>;
  getCollection(poolId: string, collectionId: string): Promise<CheckpointCollection | undefined>;
}
