import { createHash } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendGet, sendPut, sendQuery, sendUpdate } from './document-calls.js';
import type { ItemStateEntry } from '../../domain/pools/item-census.js';
import type { Pool } from '../../domain/pools/pool.js';
import { collectionTimerId, isItemIdle, itemTimerId, poolTimerId, type ItemState, type PoolItem } from '../../domain/pools/pool-item.js';
import { storedTenant } from '../../domain/tenant.js';
import type { AskedAgent, AskedAgentWindow, CheckpointCollection, CollectionChunk } from '../../domain/pools/checkpoint-collection.js';
import type { ClaimReceipt, EscalationPage, EscalationPointer, ItemPage, PoolStore } from '../../ports/pool-store.js';
import { batchGet } from './batch-requests.js';
import { DynamoClaimReceipts } from './claim-receipts.js';
import { DynamoSubtaskReservations } from './subtask-reservations.js';
import { AVAILABLE_INDEX, AVAILABLE_INDEX_KEYS, POOL_ITEMS_INDEX_KEYS, SPLIT_PENDING_ATTRIBUTE, timerShardOf } from './jobs-table.js';
import { ITEM_PREFIX, itemIdOfKey, itemKey, poolPk } from './pool-keys.js';
import { BATCH_GET_KEYS, DynamoPoolItemStates, isMissingIndex, type StatsPage } from './pool-item-states.js';
import { createOrReturnExisting, putVersioned, withoutStorageAttributes } from './versioned-item.js';

export const poolKey = (poolId: string) => ({ pk: poolPk(poolId), sk: 'POOL' });
const SUBTASK_PREFIX = 'SUBTASK#';
const subtaskKey = (poolId: string, itemId: string) => ({ pk: poolPk(poolId), sk: `${SUBTASK_PREFIX}${itemId}` });
const collectionKey = (poolId: string, collectionId: string) => ({ pk: poolPk(poolId), sk: `COLL#${collectionId}` });
/** A collection's rows of asked agents: one per chunk of its pass (≤ a chunk's agents of ~300 bytes each). */
const collectionRowKey = (poolId: string, collectionId: string, row: number) => ({ pk: poolPk(poolId), sk: `COLL#${collectionId}#${row}` });
/** Asked agents per row of a collection stored in one call, before passes. */
const AGENTS_PER_ONE_CALL_ROW = 500;
export const ESCALATIONS_PK = 'ESCALATIONS';
/**
 * Queries per escalation page at most: a tenant's escalations may be sparse among other tenants',
 * and DynamoDB applies `Limit` before the filter, so a page may end short (still with `more`).
 */
const ESCALATION_READS = 8;

/** One pool's escalations are a key range (escalation ids start with `poolId~`, ids cannot hold `~`); a tenant's are filtered. */
function escalationsOf(scope: { poolId: string } | { tenant: string }) {
  if ('poolId' in scope) {
    return { KeyConditionExpression: 'pk = :pk AND begins_with(sk, :pool)', ExpressionAttributeValues: { ':pk': ESCALATIONS_PK, ':pool': `${scope.poolId}~` } };
  }
  const stored = storedTenant(scope.tenant).tenant;
  return {
    KeyConditionExpression: 'pk = :pk',
    // Pointers of the default tenant, and every pointer from before tenants, have no `tenant`.
    FilterExpression: stored === undefined ? 'attribute_not_exists(#tenant)' : '#tenant = :tenant',
    ExpressionAttributeNames: { '#tenant': 'tenant' },
    ExpressionAttributeValues: { ':pk': ESCALATIONS_PK, ...(stored === undefined ? {} : { ':tenant': stored }) },
  };
}
const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
/** A random point in the `available` index's key space. */
const randomAvailableKey = (random: () => number): string => Array.from({ length: 4 }, () => BASE64URL[Math.floor(random() * BASE64URL.length)]).join('');
/** Conditional item creates in flight at once (each is its own PutItem: a batch write has no condition). */
const CREATE_CONCURRENCY = 16;

// `jobId` on a pool is the timer index's copy of its timer id, as on an item.
const asPool = (item: Record<string, unknown>) => withoutStorageAttributes(item, ['jobId']) as unknown as Pool;
// `jobId` on an item is the timer index's copy of its timer id, not part of the item; the
// `available` index keys are the claim index's.
const asItem = (item: Record<string, unknown>) =>
  withoutStorageAttributes(item, ['jobId', AVAILABLE_INDEX_KEYS.partition, AVAILABLE_INDEX_KEYS.sort, SPLIT_PENDING_ATTRIBUTE]) as unknown as PoolItem;

/**
 * The sort key spreads a pool's available items in an order unrelated to their ids and new on every
 * attempt, so agents reading the first few candidates at once mostly pick different items.
 */
const availableKeyOf = (item: PoolItem): string => createHash('sha256').update(`${item.itemId}#${item.attempt}`).digest('base64url').slice(0, 16);

/**
 * While an item has a wake-up, the sparse `timers` index carries it, with the attempt as its fence;
 * while it is available, the sparse `available` index does (a claim's candidates).
 */
const itemIndexAttributes = (item: PoolItem): Record<string, unknown> => ({
  ...(item.timerDueAt === undefined
    ? {}
    : { timerShard: timerShardOf(itemTimerId(item.poolId, item.itemId), isItemIdle(item)), jobId: itemTimerId(item.poolId, item.itemId), timerFenceToken: item.attempt }),
  ...(item.state === 'available' ? { [AVAILABLE_INDEX_KEYS.partition]: item.poolId, [AVAILABLE_INDEX_KEYS.sort]: availableKeyOf(item) } : {}),
  // A split whose subtasks are not created yet still holds its pool open (item-census.ts): a crash between
  // the answer's write and its follow-up must not let the pool complete without them (simulator, seed 21).
  ...((item.pending ?? []).some((followUp) => followUp.type === 'create_items') ? { [SPLIT_PENDING_ATTRIBUTE]: true } : {}),
});

/**
 * A pool has a wake-up while a stop's wake pass is under way (among the decisions the sweep fires
 * first) or its outbox waits to be published (decide-and-save.ts; in the outbox shards).
 */
const poolIndexAttributes = (pool: Pool): Record<string, unknown> =>
  pool.timerDueAt === undefined
    ? {}
    : { timerShard: timerShardOf(poolTimerId(pool.poolId), pool.wakePass === undefined), jobId: poolTimerId(pool.poolId), timerFenceToken: 0 };

/** While its pass runs, a collection has a wake-up, among the decisions the sweep fires. */
const collectionIndexAttributes = (collection: CheckpointCollection): Record<string, unknown> => {
  if (collection.timerDueAt === undefined) return {};
  const timerId = collectionTimerId(collection.poolId, collection.collectionId);
  return { timerShard: timerShardOf(timerId), jobId: timerId, timerFenceToken: 0 };
};

/** The rows holding asked agents [from, end), with where each row's agents start; empty rows are skipped. */
function rowsHolding(collection: CheckpointCollection, from: number, end: number): Array<{ row: number; start: number }> {
  const starts =
    collection.chunkStarts ?? Array.from({ length: Math.ceil(collection.agentCount / AGENTS_PER_ONE_CALL_ROW) }, (_, row) => row * AGENTS_PER_ONE_CALL_ROW);
  return starts.flatMap((start, row) => {
    const rowEnd = starts[row + 1] ?? collection.agentCount;
    return start < end && rowEnd > from && rowEnd > start ? [{ row, start }] : [];
  });
}

/** A new pool item as stored: its keys and index attributes (also the bench's seed). */
export const newItemRecord = (item: PoolItem): Record<string, unknown> => ({ ...item, version: 1, ...itemIndexAttributes(item), ...itemKey(item.poolId, item.itemId) });

const encodeToken = (key: Record<string, unknown> | undefined) => (key ? Buffer.from(JSON.stringify(key), 'utf8').toString('base64url') : undefined);
function decodeToken(token: string | undefined): Record<string, unknown> | undefined {
  if (!token) return undefined;
  try {
    const key = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    return key && typeof key === 'object' ? (key as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export class DynamoPoolStore implements PoolStore {
  private readonly receipts: DynamoClaimReceipts;
  private readonly reservations: DynamoSubtaskReservations;
  private readonly stateReads: DynamoPoolItemStates;

  /** `random` picks where a claim starts reading the `available` index; a simulation passes its seeded stream. */
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly random: () => number = Math.random,
  ) {
    this.receipts = new DynamoClaimReceipts(doc, tableName);
    this.reservations = new DynamoSubtaskReservations(doc, tableName);
    this.stateReads = new DynamoPoolItemStates(doc, tableName);
  }

  getClaimReceipt(poolId: string, agentId: string, claimId: string) {
    return this.receipts.get(poolId, agentId, claimId);
  }

  reserveClaim(receipt: ClaimReceipt, found?: ClaimReceipt) {
    return this.receipts.reserve(receipt, found);
  }

  moveClaim(reserved: ClaimReceipt, itemId: string) {
    return this.receipts.move(reserved, itemId);
  }

  releaseClaim(reserved: ClaimReceipt) {
    return this.receipts.release(reserved);
  }

  async getPool(poolId: string): Promise<Pool | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: poolKey(poolId), ConsistentRead: true });
    return Item ? asPool(Item) : undefined;
  }

  async putNewPool(pool: Pool) {
    const result = await createOrReturnExisting(
      () => putVersioned(this.doc, this.tableName, poolKey(pool.poolId), pool, 0, poolIndexAttributes(pool)),
      () => this.getPool(pool.poolId),
    );
    return result.created ? { created: true as const, pool: result.job } : { created: false as const, existing: result.existing };
  }

  savePool(pool: Pool, expectedVersion: number): Promise<Pool> {
    return putVersioned(this.doc, this.tableName, poolKey(pool.poolId), pool, expectedVersion, poolIndexAttributes(pool));
  }

  async getItem(poolId: string, itemId: string): Promise<PoolItem | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: itemKey(poolId, itemId), ConsistentRead: true });
    return Item ? asItem(Item) : undefined;
  }

  saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem> {
    return putVersioned(this.doc, this.tableName, itemKey(item.poolId, item.itemId), item, expectedVersion, itemIndexAttributes(item));
  }

  async createItems(items: readonly PoolItem[]): Promise<void> {
    for (let start = 0; start < items.length; start += CREATE_CONCURRENCY) {
      await Promise.all(items.slice(start, start + CREATE_CONCURRENCY).map((item) => this.createItem(item)));
    }
  }

  async reserveSubtaskIds(poolId: string, itemIds: readonly string[], owner: string): Promise<string[]> {
    // A split refused for an id another split holds names nothing on the owner's rows: a refusal an
    // operator can repeat with fresh ids at will would otherwise add rows for nothing.
    const heldElsewhere = await this.subtaskIdsHeldByOthers(poolId, itemIds, owner);
    if (heldElsewhere.length > 0) return heldElsewhere;
    // Named on the owner's rows before any is reserved: a call cut off in between leaves nothing its release cannot find.
    await this.reservations.record(poolId, owner, itemIds);
    const held = await Promise.all(itemIds.map(async (itemId) => ((await this.reserveSubtaskId(poolId, itemId, owner)) ? undefined : itemId)));
    const taken = held.filter((itemId): itemId is string => itemId !== undefined);
    if (taken.length > 0) await this.releaseSubtaskIds(poolId, itemIds.filter((itemId) => !taken.includes(itemId)), owner);
    return taken;
  }

  async releaseSubtaskIds(poolId: string, itemIds: readonly string[], owner: string): Promise<void> {
    await Promise.all(itemIds.map((itemId) => this.releaseSubtaskId(poolId, itemId, owner)));
  }

  /** Reads only the ids `owner` ever named (its row), not every reservation of the pool. */
  async subtaskIdsHeldBy(poolId: string, owner: string): Promise<string[]> {
    const named = await this.reservations.named(poolId, owner);
    const rows: Record<string, unknown>[] = [];
    for (let start = 0; start < named.length; start += BATCH_GET_KEYS) {
      rows.push(...(await batchGet(this.doc, this.tableName, named.slice(start, start + BATCH_GET_KEYS).map((itemId) => subtaskKey(poolId, itemId)))));
    }
    return rows.filter((row) => row['owner'] === owner).map((row) => String(row['sk']).slice(SUBTASK_PREFIX.length));
  }

  /** Of these ids, those another owner holds now, in the order given (a reservation made after this read is caught by the reserving write). */
  private async subtaskIdsHeldByOthers(poolId: string, itemIds: readonly string[], owner: string): Promise<string[]> {
    const held = new Set<string>();
    for (let start = 0; start < itemIds.length; start += BATCH_GET_KEYS) {
      const rows = await batchGet(this.doc, this.tableName, itemIds.slice(start, start + BATCH_GET_KEYS).map((itemId) => subtaskKey(poolId, itemId)));
      for (const row of rows) if (row['owner'] !== undefined && row['owner'] !== owner) held.add(String(row['sk']).slice(SUBTASK_PREFIX.length));
    }
    return itemIds.filter((itemId) => held.has(itemId));
  }

  private async reserveSubtaskId(poolId: string, itemId: string, owner: string): Promise<boolean> {
    try {
      await sendPut(this.doc, {
        TableName: this.tableName,
        Item: { ...subtaskKey(poolId, itemId), owner },
        ConditionExpression: 'attribute_not_exists(#owner) OR #owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      });
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return false;
    }
  }

  /** Drops the owner rather than the item: the handlers' grants hold no DeleteItem (infra/constructs/handler-access.ts). */
  private async releaseSubtaskId(poolId: string, itemId: string, owner: string): Promise<void> {
    try {
      await sendUpdate(this.doc, {
        TableName: this.tableName,
        Key: subtaskKey(poolId, itemId),
        UpdateExpression: 'REMOVE #owner',
        ConditionExpression: '#owner = :owner',
        ExpressionAttributeNames: { '#owner': 'owner' },
        ExpressionAttributeValues: { ':owner': owner },
      });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  private async createItem(item: PoolItem): Promise<void> {
    try {
      await sendPut(this.doc, {
        TableName: this.tableName,
        Item: newItemRecord(item),
        ConditionExpression: 'attribute_not_exists(pk)',
      });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }


  /**
   * Candidates from the pool's index, each read back from the table and kept only if it is in that
   * state there: the index may still show an item as it was a moment ago.
   */
  async itemsInState(poolId: string, state: ItemState, limit: number, afterItemId?: string): Promise<ItemPage> {
    try {
      return await this.itemsInStateFrom('index', poolId, state, limit, afterItemId);
    } catch (error) {
      if (!isMissingIndex(error)) throw error;
      return this.itemsInStateFrom('table', poolId, state, limit, afterItemId);
    }
  }

  private async itemsInStateFrom(from: 'index' | 'table', poolId: string, state: ItemState, limit: number, afterItemId?: string): Promise<ItemPage> {
    const items: PoolItem[] = [];
    const pages = this.stateReads.idsInState(poolId, state, from, afterItemId);
    for await (const ids of pages) {
      for (let start = 0; start < ids.length; ) {
        const wanted = ids.slice(start, start + Math.min(BATCH_GET_KEYS, limit - items.length));
        start += wanted.length;
        const read = new Map((await this.getItems(wanted.map((itemId) => ({ poolId, itemId })))).map((item) => [item.itemId, item]));
        items.push(...wanted.flatMap((itemId) => (read.get(itemId)?.state === state ? [read.get(itemId) as PoolItem] : [])));
        if (items.length >= limit) {
          // "More" means more may follow: the rest can turn out empty.
          const more = start < ids.length || !(await pages.next()).done;
          await pages.return(undefined);
          return { items, more };
        }
      }
    }
    return { items, more: false };
  }

  /**
   * One page of the sparse `available` index: a claim costs the same in a pool of 10 items or
   * 100,000. The index is eventually consistent: a candidate may have just been claimed (the
   * claim's conditional write on the item decides), and an item that just became available may
   * show a moment later.
   */
  async availableItemIds(poolId: string, limit: number): Promise<string[]> {
    try {
      // From a random point, so many agents claiming at once read different candidates (the index
      // lags: the first few entries would be the ones just claimed); from the start when past the end.
      const from = await this.availableFrom(poolId, limit, randomAvailableKey(this.random));
      return from.length > 0 ? from : await this.availableFrom(poolId, limit);
    } catch (error) {
      if (!isMissingIndex(error)) throw error;
      return this.availableItemIdsByScan(poolId, limit);
    }
  }

  private async availableFrom(poolId: string, limit: number, fromKey?: string): Promise<string[]> {
    const page = await sendQuery(this.doc, {
      TableName: this.tableName,
      IndexName: AVAILABLE_INDEX,
      KeyConditionExpression: fromKey === undefined ? '#pool = :pool' : '#pool = :pool AND #key >= :from',
      ExpressionAttributeNames: { '#pool': AVAILABLE_INDEX_KEYS.partition, ...(fromKey === undefined ? {} : { '#key': AVAILABLE_INDEX_KEYS.sort }) },
      ExpressionAttributeValues: { ':pool': poolId, ...(fromKey === undefined ? {} : { ':from': fromKey }) },
      Limit: limit,
    });
    return (page.Items ?? []).map((item) => String(item['sk']).slice(ITEM_PREFIX.length));
  }

  /** A local table created before the `available` index existed (dynalite cannot add one): read the pool's items. */
  private async availableItemIdsByScan(poolId: string, limit: number): Promise<string[]> {
    const ids: string[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await sendQuery(this.doc, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
        FilterExpression: '#state = :available',
        ProjectionExpression: 'itemId',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: { ':pk': poolPk(poolId), ':items': ITEM_PREFIX, ':available': 'available' },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      });
      ids.push(...(page.Items ?? []).map((item) => String(item['itemId'])));
      startKey = page.LastEvaluatedKey;
    } while (startKey && ids.length < limit);
    return ids.slice(0, limit);
  }

  async itemStates(poolId: string, from: 'index' | 'table'): Promise<ItemStateEntry[]> {
    try {
      return await this.stateReads.all(poolId, from);
    } catch (error) {
      if (from === 'table' || !isMissingIndex(error)) throw error;
      return this.stateReads.all(poolId, 'table');
    }
  }

  readItemStates(poolId: string, itemIds: readonly string[]): Promise<ItemStateEntry[]> {
    return this.stateReads.read(poolId, itemIds);
  }

  /**
   * From the `poolItems` index (a moment behind the writes), whose entries carry `stats`: a pool of
   * items at their largest pages as one of small items. On the table when the index is missing or
   * predates `stats`; a token from a table page (its key has no index partition) continues there.
   */
  async itemStats(poolId: string, nextToken?: string) {
    const after = decodeToken(nextToken);
    const afterItemId = typeof after?.['sk'] === 'string' ? itemIdOfKey(after['sk']) : undefined;
    let page: StatsPage | undefined;
    if (after === undefined || POOL_ITEMS_INDEX_KEYS.partition in after) {
      try {
        page = await this.stateReads.statsPage(poolId, 'index', afterItemId);
      } catch (error) {
        if (!isMissingIndex(error)) throw error;
      }
    }
    page ??= await this.stateReads.statsPage(poolId, 'table', afterItemId);
    const token = encodeToken(page.lastKey);
    return { items: page.items, ...(token ? { nextToken: token } : {}) };
  }

  async putEscalationPointer(pointer: EscalationPointer): Promise<void> {
    await sendPut(this.doc, { TableName: this.tableName, Item: { ...pointer, pk: ESCALATIONS_PK, sk: pointer.escalationId } });
  }

  async getEscalationPointer(escalationId: string): Promise<EscalationPointer | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: { pk: ESCALATIONS_PK, sk: escalationId }, ConsistentRead: true });
    return Item ? (withoutStorageAttributes(Item) as unknown as EscalationPointer) : undefined;
  }

  async listEscalationPointers(scope: { poolId: string } | { tenant: string }, limit: number, afterEscalationId?: string): Promise<EscalationPage> {
    const pointers: EscalationPointer[] = [];
    let readUpTo = afterEscalationId;
    let more = true;
    for (let reads = 0; reads < ESCALATION_READS && more && pointers.length < limit; reads++) {
      const page = await sendQuery(this.doc, {
        TableName: this.tableName,
        ...escalationsOf(scope),
        ConsistentRead: true,
        Limit: limit - pointers.length,
        ...(readUpTo === undefined ? {} : { ExclusiveStartKey: { pk: ESCALATIONS_PK, sk: readUpTo } }),
      });
      pointers.push(...(page.Items ?? []).map((item) => withoutStorageAttributes(item) as unknown as EscalationPointer));
      more = page.LastEvaluatedKey !== undefined;
      if (page.LastEvaluatedKey) readUpTo = page.LastEvaluatedKey['sk'] as string;
    }
    return { pointers, more, ...(more && readUpTo !== undefined ? { readUpTo } : {}) };
  }

  async getItems(requested: ReadonlyArray<{ poolId: string; itemId: string }>): Promise<PoolItem[]> {
    // BatchGetItem refuses a key twice (an item escalated twice has two pointers).
    const keys = [...new Map(requested.map((key) => [itemTimerId(key.poolId, key.itemId), key])).values()];
    const found: PoolItem[] = [];
    for (let start = 0; start < keys.length; start += BATCH_GET_KEYS) {
      const page = await batchGet(this.doc, this.tableName, keys.slice(start, start + BATCH_GET_KEYS).map((key) => itemKey(key.poolId, key.itemId)));
      found.push(...page.map(asItem));
    }
    return found;
  }

  putCollection(collection: CheckpointCollection): Promise<CheckpointCollection> {
    return putVersioned(this.doc, this.tableName, collectionKey(collection.poolId, collection.collectionId), collection, 0, collectionIndexAttributes(collection));
  }

  saveCollection(collection: CheckpointCollection, expectedVersion: number): Promise<CheckpointCollection> {
    const key = collectionKey(collection.poolId, collection.collectionId);
    return putVersioned(this.doc, this.tableName, key, collection, expectedVersion, collectionIndexAttributes(collection));
  }

  async getCollection(poolId: string, collectionId: string): Promise<CheckpointCollection | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: collectionKey(poolId, collectionId), ConsistentRead: true });
    // `jobId` is the timer index's copy of its timer id.
    return Item ? (withoutStorageAttributes(Item, ['jobId']) as unknown as CheckpointCollection) : undefined;
  }

  async putCollectionChunk(chunk: CollectionChunk): Promise<CollectionChunk> {
    const { poolId, collectionId, index, ...row } = chunk;
    const key = collectionRowKey(poolId, collectionId, index);
    try {
      await sendPut(this.doc, { TableName: this.tableName, Item: { ...row, ...key }, ConditionExpression: 'attribute_not_exists(pk)' });
      return chunk;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: key, ConsistentRead: true });
    if (!Item) throw new Error(`chunk ${index} of collection ${collectionId} was refused as stored, and is not`);
    return { ...(withoutStorageAttributes(Item) as unknown as Omit<CollectionChunk, 'poolId' | 'collectionId' | 'index'>), poolId, collectionId, index };
  }

  async askedAgents(collection: CheckpointCollection, from: number, count: number): Promise<AskedAgentWindow[]> {
    const { poolId, collectionId } = collection;
    const end = Math.min(collection.agentCount, from + count);
    const rows = rowsHolding(collection, from, end);
    const read = new Map<string, Record<string, unknown>>();
    for (let start = 0; start < rows.length; start += BATCH_GET_KEYS) {
      const keys = rows.slice(start, start + BATCH_GET_KEYS).map(({ row }) => collectionRowKey(poolId, collectionId, row));
      for (const item of await batchGet(this.doc, this.tableName, keys)) read.set(String(item['sk']), item);
    }
    return rows.flatMap(({ row, start }) => {
      const item = read.get(collectionRowKey(poolId, collectionId, row).sk);
      const asked = (item?.['asked'] ?? []) as AskedAgent[];
      // A row of a collection asked in one call has the collection's one window.
      const until = typeof item?.['until'] === 'number' ? item['until'] : collection.until;
      return asked.slice(Math.max(0, from - start), end - start).map((agent) => ({ ...agent, until }));
    });
  }
}
