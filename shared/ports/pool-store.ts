import type { AskedAgentWindow, CheckpointCollection, CollectionChunk } from '../domain/pools/checkpoint-collection.js';
import type { ItemStateEntry } from '../domain/pools/item-census.js';
import type { Pool } from '../domain/pools/pool.js';
import type { ItemState, PoolItem } from '../domain/pools/pool-item.js';
import type { TenantOwned } from '../domain/tenant.js';
import type { EpochMs } from '../domain/time.js';

/**
 * Where `GET /escalations` finds questions across pools; the item holds the question's state. It
 * carries its pool's tenant (absent for the default one) so a listing across pools shows only the caller's.
 */
export interface EscalationPointer extends TenantOwned {
  escalationId: string;
  poolId: string;
  itemId: string;
  askedAt: EpochMs;
}

/**
 * A claim with a `claimId`, reserved naming the item it is about to take: the attempt it takes carries
 * the claim id, so a retry finds it there whenever the claim got that far, even if it crashed at once.
 */
export interface ClaimReceipt {
  poolId: string;
  agentId: string;
  claimId: string;
  reservedAt: EpochMs;
  itemId: string;
}

/** A page in key order; `more` when more may follow (pass the last id back to continue). */
export interface ItemPage {
  items: PoolItem[];
  more: boolean;
}

export interface EscalationPage {
  pointers: EscalationPointer[];
  more: boolean;
  /** The last escalation id read (matching or not): where the next page starts when `more`. */
  readUpTo?: string;
}

/**
 * Pools on the regional table: one item per pool and one per pool item; every change is a
 * conditional write on the item's version. Counts and metrics are derived by query, so no pool
 * item is a write hot spot.
 */
export interface PoolStore {
  getPool(poolId: string): Promise<Pool | undefined>;
  /** Writes the pool item only if none with that id exists; else returns the existing one and writes nothing. */
  putNewPool(pool: Pool): Promise<{ created: true; pool: Pool } | { created: false; existing: Pool }>;
  savePool(pool: Pool, expectedVersion: number): Promise<Pool>;
  getItem(poolId: string, itemId: string): Promise<PoolItem | undefined>;
  saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem>;
  /** Creates each item unless one with its id exists (a split's subtasks, idempotently). */
  createItems(items: readonly PoolItem[]): Promise<void>;
  /**
   * Reserves these item ids for one split (`owner`, its escalation), so no other split can name them
   * while this one's subtasks are not yet created. Answers the ids another split holds; then none of
   * this one's stays reserved. Reserving again for the same owner is answered as the first time.
   */
  reserveSubtaskIds(poolId: string, itemIds: readonly string[], owner: string): Promise<string[]>;
  /** Gives up `owner`'s reservations of these ids (its answer was refused after all). */
  releaseSubtaskIds(poolId: string, itemIds: readonly string[], owner: string): Promise<void>;
  /** The ids `owner` holds (a split that failed or was cut off before its answer was written leaves some). */
  subtaskIdsHeldBy(poolId: string, owner: string): Promise<string[]>;
  /** Up to `limit` ids of available items, read without their bodies (a claim's candidates). */
  availableItemIds(poolId: string, limit: number): Promise<string[]>;
  /**
   * Up to `limit` items in that state, in item-id order after `afterItemId` (the DLQ page, running
   * items). Found in the pool's index, so an item that entered the state a moment ago may be missing;
   * every item answered was read back from the table in that state.
   */
  itemsInState(poolId: string, state: ItemState, limit: number, afterItemId?: string): Promise<ItemPage>;
  /**
   * Every item's state: from the pool's index (`'index'`: small entries, a few pages for any pool,
   * but a moment behind the writes), or read consistently from the table (`'table'`: its pages grow
   * with what the items hold; only where the index cannot be trusted yet).
   */
  itemStates(poolId: string, from: 'index' | 'table'): Promise<ItemStateEntry[]>;
  /** These items' states, read consistently (items that do not exist are left out). */
  readItemStates(poolId: string, itemIds: readonly string[]): Promise<ItemStateEntry[]>;
  /** Every item's metric counters, page by page (only `itemId` and `stats` are read). */
  itemStats(poolId: string, nextToken?: string): Promise<{ items: Array<Pick<PoolItem, 'itemId' | 'stats'>>; nextToken?: string }>;
  putEscalationPointer(pointer: EscalationPointer): Promise<void>;
  /** The pointer of an escalation that was asked (its `index_escalation` follow-up ran), read consistently. */
  getEscalationPointer(escalationId: string): Promise<EscalationPointer | undefined>;
  /**
   * Up to `limit` escalations of one pool, or of every pool of one tenant, in escalation-id order
   * after `afterEscalationId`.
   */
  listEscalationPointers(scope: { poolId: string } | { tenant: string }, limit: number, afterEscalationId?: string): Promise<EscalationPage>;
  getItems(keys: ReadonlyArray<{ poolId: string; itemId: string }>): Promise<PoolItem[]>;
  /** Writes a new collection; VersionConflictError when one with its id is stored (a caller's id used again). */
  putCollection(collection: CheckpointCollection): Promise<CheckpointCollection>;
  saveCollection(collection: CheckpointCollection, expectedVersion: number): Promise<CheckpointCollection>;
  getCollection(poolId: string, collectionId: string): Promise<CheckpointCollection | undefined>;
  /** Stores a chunk of a collection's pass unless one with its index is stored; answers the chunk stored. */
  putCollectionChunk(chunk: CollectionChunk): Promise<CollectionChunk>;
  /** Up to `count` asked agents from position `from`, in the order they were asked, each with its window's end. */
  askedAgents(collection: CheckpointCollection, from: number, count: number): Promise<AskedAgentWindow[]>;
  getClaimReceipt(poolId: string, agentId: string, claimId: string): Promise<ClaimReceipt | undefined>;
  /**
   * Reserves the claim id for this call: a new receipt, or, given the one found, that one retaken
   * (its claim was abandoned). False when another call reserved it first.
   */
  reserveClaim(receipt: ClaimReceipt, found?: ClaimReceipt): Promise<boolean>;
  /** Names the next item the reservation is about to take (another agent took the last); false when it was retaken meanwhile. */
  moveClaim(reserved: ClaimReceipt, itemId: string): Promise<boolean>;
  /** Gives up the reservation of a claim that took nothing (it then reads as abandoned), so a retry claims afresh. */
  releaseClaim(reserved: ClaimReceipt): Promise<void>;
}
