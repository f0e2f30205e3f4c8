import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendQuery } from './document-calls.js';
import type { ItemStateEntry } from '../../domain/pools/item-census.js';
import type { ItemState, ItemStats, PoolItem } from '../../domain/pools/pool-item.js';
import { batchGet } from './batch-requests.js';
import { POOL_ITEMS_INDEX, POOL_ITEMS_INDEX_KEYS, SPLIT_PENDING_ATTRIBUTE } from './jobs-table.js';
import { ITEM_PREFIX, itemIdOfKey, itemKey, poolPk } from './pool-keys.js';

/** BatchGetItem's limit of keys per call. */
export const BATCH_GET_KEYS = 100;

/** The index's entries read per Query page; entries are small, so a page holds far more than items at their largest. */
const INDEX_PAGE_LIMIT = 1_000;

interface PoolItemsQuery {
  TableName: string;
  IndexName?: string;
  KeyConditionExpression: string;
  ExpressionAttributeNames: Record<string, string>;
  ExpressionAttributeValues: Record<string, unknown>;
  ConsistentRead?: boolean;
}

const STATE_NAMES = { '#state': 'state', '#splitPending': SPLIT_PENDING_ATTRIBUTE };

const entryOf = (row: Record<string, unknown>): ItemStateEntry => ({
  itemId: itemIdOfKey(row['sk']),
  state: row['state'] as ItemState,
  splitPending: row[SPLIT_PENDING_ATTRIBUTE] === true,
});

/** A pool's items in key order: on the `poolItems` index (eventually consistent), or on the table (consistent). */
function itemsOf(poolId: string, tableName: string, from: 'index' | 'table'): PoolItemsQuery {
  return from === 'index'
    ? {
        TableName: tableName,
        IndexName: POOL_ITEMS_INDEX,
        KeyConditionExpression: '#pool = :pool AND begins_with(#sk, :items)',
        ExpressionAttributeNames: { '#pool': POOL_ITEMS_INDEX_KEYS.partition, '#sk': POOL_ITEMS_INDEX_KEYS.sort },
        ExpressionAttributeValues: { ':pool': poolId, ':items': ITEM_PREFIX },
      }
    : {
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :items)',
        ExpressionAttributeNames: {},
        ExpressionAttributeValues: { ':pk': poolPk(poolId), ':items': ITEM_PREFIX },
        ConsistentRead: true,
      };
}

/** Where a query of a pool's items resumes after `itemId`: the table's key, and the index's on the index. */
const startAfter = (poolId: string, itemId: string, from: 'index' | 'table') => ({
  ...itemKey(poolId, itemId),
  ...(from === 'index' ? { [POOL_ITEMS_INDEX_KEYS.partition]: poolId } : {}),
});

export const isMissingIndex = (error: unknown): boolean =>
  error instanceof Error &&
  error.name === 'ValidationException' &&
  // A local table created before the index existed (dynalite cannot add one), or an index AWS is still backfilling.
  /does not have the specified index|backfilling global secondary index/i.test(error.message);

/** One page of a pool's items' metric counters, and the key it ended at when more may follow. */
export interface StatsPage {
  items: Array<Pick<PoolItem, 'itemId' | 'stats'>>;
  lastKey?: Record<string, unknown>;
}

/**
 * A pool's item states and metric counters without the items' bodies. DynamoDB's 1 MB page counts
 * what it reads before the projection, so the table gives a few items at their largest per page;
 * a `poolItems` entry is ~0.3 KB for an item run once and 6.3 KB with every counter at its bound
 * (`jobs-table.ts`): a pool of 10,000 is 3 to 60 pages there, against the table's ~1,150.
 */
export class DynamoPoolItemStates {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async all(poolId: string, from: 'index' | 'table'): Promise<ItemStateEntry[]> {
    const base = itemsOf(poolId, this.tableName, from);
    const entries: ItemStateEntry[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await sendQuery(this.doc, {
        ...base,
        ProjectionExpression: 'sk, #state, #splitPending',
        ExpressionAttributeNames: { ...base.ExpressionAttributeNames, ...STATE_NAMES },
        ExclusiveStartKey: startKey,
      });
      entries.push(...(page.Items ?? []).map(entryOf));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return entries;
  }

  /**
   * A page of the items' metric counters after `afterItemId`, in item-id order. `undefined` when the
   * index left `stats` out of an entry: a GSI query answers without the attributes it does not
   * project (dynalite and DynamoDB alike), as on a local table whose index predates them.
   */
  statsPage(poolId: string, from: 'table', afterItemId?: string): Promise<StatsPage>;
  statsPage(poolId: string, from: 'index', afterItemId?: string): Promise<StatsPage | undefined>;
  async statsPage(poolId: string, from: 'index' | 'table', afterItemId?: string): Promise<StatsPage | undefined> {
    const base = itemsOf(poolId, this.tableName, from);
    const page = await sendQuery(this.doc, {
      ...base,
      ProjectionExpression: 'sk, #stats',
      ExpressionAttributeNames: { ...base.ExpressionAttributeNames, '#stats': 'stats' },
      ExclusiveStartKey: afterItemId === undefined ? undefined : startAfter(poolId, afterItemId, from),
    });
    const rows = page.Items ?? [];
    if (from === 'index' && rows.some((row) => row['stats'] === undefined)) return undefined;
    const items = rows.map((row) => ({ itemId: itemIdOfKey(row['sk']), stats: row['stats'] as ItemStats }));
    return { items, ...(page.LastEvaluatedKey ? { lastKey: page.LastEvaluatedKey } : {}) };
  }

  async read(poolId: string, itemIds: readonly string[]): Promise<ItemStateEntry[]> {
    const entries: ItemStateEntry[] = [];
    for (let start = 0; start < itemIds.length; start += BATCH_GET_KEYS) {
      const keys = itemIds.slice(start, start + BATCH_GET_KEYS).map((itemId) => itemKey(poolId, itemId));
      const rows = await batchGet(this.doc, this.tableName, keys, { expression: 'sk, #state, #splitPending', names: STATE_NAMES });
      entries.push(...rows.map(entryOf));
    }
    return entries;
  }

  /** Ids of the items in `state` after `afterItemId`, a page of the query at a time, in item-id order. */
  async *idsInState(poolId: string, state: ItemState, from: 'index' | 'table', afterItemId?: string): AsyncGenerator<string[]> {
    const base = itemsOf(poolId, this.tableName, from);
    let startKey: Record<string, unknown> | undefined = afterItemId === undefined ? undefined : startAfter(poolId, afterItemId, from);
    do {
      const page = await sendQuery(this.doc, {
        ...base,
        FilterExpression: '#state = :state',
        ProjectionExpression: 'sk',
        ExpressionAttributeNames: { ...base.ExpressionAttributeNames, '#state': 'state' },
        ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':state': state },
        Limit: INDEX_PAGE_LIMIT,
        ExclusiveStartKey: startKey,
      });
      startKey = page.LastEvaluatedKey;
      const ids = (page.Items ?? []).map((row) => itemIdOfKey(row['sk']));
      if (ids.length > 0 || startKey === undefined) yield ids;
    } while (startKey);
  }
}
