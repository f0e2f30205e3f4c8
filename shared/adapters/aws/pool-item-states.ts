import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { ItemStateEntry } from '../../domain/pools/item-census.js';
import type { ItemState } from '../../domain/pools/pool-item.js';
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

/**
 * A pool's item states without the items' bodies. DynamoDB's 1 MB page counts what it reads before
 * the projection, so the table gives a few items at their largest per page; the `poolItems` index
 * holds ~200 bytes per item, a pool of 10,000 in a page or two.
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
      const page = await this.doc.send(
        new QueryCommand({
          ...base,
          ProjectionExpression: 'sk, #state, #splitPending',
          ExpressionAttributeNames: { ...base.ExpressionAttributeNames, ...STATE_NAMES },
          ExclusiveStartKey: startKey,
        }),
      );
      entries.push(...(page.Items ?? []).map(entryOf));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return entries;
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
      const page = await this.doc.send(
        new QueryCommand({
          ...base,
          FilterExpression: '#state = :state',
          ProjectionExpression: 'sk',
          ExpressionAttributeNames: { ...base.ExpressionAttributeNames, '#state': 'state' },
          ExpressionAttributeValues: { ...base.ExpressionAttributeValues, ':state': state },
          Limit: INDEX_PAGE_LIMIT,
          ExclusiveStartKey: startKey,
        }),
      );
      startKey = page.LastEvaluatedKey;
      const ids = (page.Items ?? []).map((row) => itemIdOfKey(row['sk']));
      if (ids.length > 0 || startKey === undefined) yield ids;
    } while (startKey);
  }
}
