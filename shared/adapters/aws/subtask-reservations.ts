import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendGet, sendPut } from './document-calls.js';
import { POOL_KEY_PREFIX } from './jobs-table.js';

/** Writes of the row lost to a racing answer of the same escalation, tried again at most this often. */
const MAX_RECORD_TRIES = 8;

const reservationsKey = (poolId: string, owner: string) => ({ pk: `${POOL_KEY_PREFIX}${poolId}`, sk: `SPLITIDS#${owner}` });

/**
 * One row per escalation naming every subtask id its answers reserved (a split names at most 100;
 * only repeats of a cut-off answer, or one that lost a reservation race, add more: an answer refused
 * because another split holds one of its ids names none), so releasing them reads that row, not every
 * reservation the pool ever made. Rows are never deleted: the handlers' grants hold no DeleteItem.
 */
export class DynamoSubtaskReservations {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async named(poolId: string, owner: string): Promise<string[]> {
    return (await this.read(poolId, owner)).itemIds;
  }

  /** Adds `itemIds` to the owner's row (a conditional write on its version: racing answers both land). */
  async record(poolId: string, owner: string, itemIds: readonly string[]): Promise<void> {
    for (let tries = 1; ; tries++) {
      const { itemIds: named, version } = await this.read(poolId, owner);
      const union = [...new Set([...named, ...itemIds])];
      if (union.length === named.length) return;
      try {
        await sendPut(this.doc, {
          TableName: this.tableName,
          Item: { ...reservationsKey(poolId, owner), itemIds: union, version: version + 1 },
          ...(version === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': version } }),
        });
        return;
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException) || tries >= MAX_RECORD_TRIES) throw error;
      }
    }
  }

  private async read(poolId: string, owner: string): Promise<{ itemIds: string[]; version: number }> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: reservationsKey(poolId, owner), ConsistentRead: true });
    const itemIds = Item?.['itemIds'];
    return { itemIds: Array.isArray(itemIds) ? itemIds.map(String) : [], version: typeof Item?.['version'] === 'number' ? Item['version'] : 0 };
  }
}
