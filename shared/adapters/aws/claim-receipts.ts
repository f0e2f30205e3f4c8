import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendGet, sendPut, sendUpdate } from './document-calls.js';
import type { ClaimReceipt } from '../../ports/pool-store.js';
import { POOL_KEY_PREFIX, TTL_ATTRIBUTE } from './jobs-table.js';
import { newWriteId, WRITE_ID } from './versioned-item.js';

/** A retry comes within seconds; a day covers any client's patience, then DynamoDB drops the receipt. */
const RECEIPT_RETENTION_SECONDS = 86_400;

/** Ids cannot hold `#`, so agent and claim id never run into each other. */
const receiptKey = ({ poolId, agentId, claimId }: Pick<ClaimReceipt, 'poolId' | 'agentId' | 'claimId'>) => ({
  pk: `${POOL_KEY_PREFIX}${poolId}`,
  sk: `CLAIM#${agentId}#${claimId}`,
});

const RELEASED_AT = 0;

const lostRace = (error: unknown): boolean => error instanceof ConditionalCheckFailedException;

/** Claim receipts on the pool's partition (outside its `ITEM#` range, so no item query reads them). */
export class DynamoClaimReceipts {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async get(poolId: string, agentId: string, claimId: string): Promise<ClaimReceipt | undefined> {
    const { Item } = await sendGet(this.doc, { TableName: this.tableName, Key: receiptKey({ poolId, agentId, claimId }), ConsistentRead: true });
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, [WRITE_ID]: _write, ...receipt } = Item;
    return receipt as ClaimReceipt;
  }

  /**
   * False when another call reserved the claim id first. A reservation whose answer was lost, repeated
   * by the SDK, fails its own condition: the receipt then carries this call's write id, and it is
   * this call's (review finding: it answered 503 busy to itself, locking its claim id out for 30 s).
   */
  async reserve(receipt: ClaimReceipt, found?: ClaimReceipt): Promise<boolean> {
    const writeId = newWriteId();
    try {
      await sendPut(this.doc, {
        TableName: this.tableName,
        Item: { ...receiptKey(receipt), ...receipt, [WRITE_ID]: writeId, [TTL_ATTRIBUTE]: Math.floor(receipt.reservedAt / 1000) + RECEIPT_RETENTION_SECONDS },
        ...(found
          ? { ConditionExpression: 'reservedAt = :found', ExpressionAttributeValues: { ':found': found.reservedAt } }
          : { ConditionExpression: 'attribute_not_exists(pk)' }),
      });
      return true;
    } catch (error) {
      if (!lostRace(error)) throw error;
      return this.writtenBy(receipt, writeId);
    }
  }

  private async writtenBy(receipt: ClaimReceipt, writeId: string): Promise<boolean> {
    const { Item } = await sendGet(this.doc, {
      TableName: this.tableName,
      Key: receiptKey(receipt),
      ConsistentRead: true,
      ProjectionExpression: '#writeId',
      ExpressionAttributeNames: { '#writeId': WRITE_ID },
    });
    return Item?.[WRITE_ID] === writeId;
  }

  async move(reserved: ClaimReceipt, itemId: string): Promise<boolean> {
    try {
      await sendUpdate(this.doc, {
        TableName: this.tableName,
        Key: receiptKey(reserved),
        UpdateExpression: 'SET itemId = :item',
        ConditionExpression: 'reservedAt = :reserved',
        ExpressionAttributeValues: { ':item': itemId, ':reserved': reserved.reservedAt },
      });
      return true;
    } catch (error) {
      if (lostRace(error)) return false;
      throw error;
    }
  }

  /** Dated back to the epoch: it reads as abandoned, so the next call with its id retakes it (no DeleteItem grant needed). */
  async release(reserved: ClaimReceipt): Promise<void> {
    try {
      await sendUpdate(this.doc, {
        TableName: this.tableName,
        Key: receiptKey(reserved),
        UpdateExpression: 'SET reservedAt = :released',
        ConditionExpression: 'reservedAt = :reserved',
        ExpressionAttributeValues: { ':reserved': reserved.reservedAt, ':released': RELEASED_AT },
      });
    } catch (error) {
      if (!lostRace(error)) throw error;
    }
  }
}
