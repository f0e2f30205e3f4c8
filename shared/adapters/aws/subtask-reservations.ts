import { createHash } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendGet, sendPut } from './document-calls.js';
import { POOL_KEY_PREFIX } from './jobs-table.js';
import { queryItems } from './query-pages.js';

const pk = (poolId: string) => `${POOL_KEY_PREFIX}${poolId}`;
/** Escalation ids hold no `#` (ids are [A-Za-z0-9._:-], joined by `~`), so this prefix is one owner's rows only. */
const ownerRowsPrefix = (owner: string) => `SPLITIDS#${owner}#`;
/** The row of one answer's ids: keyed by them, so sending that answer again (in any order) writes the same row. */
const answerRowKey = (poolId: string, owner: string, itemIds: readonly string[]) => ({
  pk: pk(poolId),
  sk: ownerRowsPrefix(owner) + createHash('sha256').update([...itemIds].sort().join('\n')).digest('base64url'),
});
/** The one growing row per escalation written before answers had rows of their own; still read, never written. */
const legacyRowKey = (poolId: string, owner: string) => ({ pk: pk(poolId), sk: `SPLITIDS#${owner}` });

/**
 * The subtask ids each escalation's split answers reserved, so releasing them reads those, not every
 * reservation the pool ever made. One row per distinct answer, naming its ids (at most 100 of 128
 * characters: ~13 KB), written once: an answer cut off before its write and sent again with other ids,
 * or one that lost a reservation race, adds a row of its own instead of growing a shared one past
 * DynamoDB's 400 KB. Rows are never deleted: the handlers' grants hold no DeleteItem.
 */
export class DynamoSubtaskReservations {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Every id the owner's answers named, each once. */
  async named(poolId: string, owner: string): Promise<string[]> {
    const [rows, legacy] = await Promise.all([
      queryItems(this.doc, {
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rows)',
        ExpressionAttributeValues: { ':pk': pk(poolId), ':rows': ownerRowsPrefix(owner) },
        ProjectionExpression: 'itemIds',
        ConsistentRead: true,
      }),
      sendGet(this.doc, { TableName: this.tableName, Key: legacyRowKey(poolId, owner), ConsistentRead: true, ProjectionExpression: 'itemIds' }),
    ]);
    const lists = [...rows, ...(legacy.Item ? [legacy.Item] : [])].map((row) => row['itemIds']);
    return [...new Set(lists.flatMap((itemIds) => (Array.isArray(itemIds) ? itemIds.map(String) : [])))];
  }

  /** Names one answer's `itemIds` for the owner: a row whose content its key decides, so racing and repeated answers all land. */
  async record(poolId: string, owner: string, itemIds: readonly string[]): Promise<void> {
    await sendPut(this.doc, { TableName: this.tableName, Item: { ...answerRowKey(poolId, owner, itemIds), itemIds: [...itemIds] } });
  }
}
