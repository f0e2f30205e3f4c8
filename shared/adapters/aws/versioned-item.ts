import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { randomFillSync } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendGet, sendPut } from './document-calls.js';
import { VersionConflictError } from '../../ports/job-store.js';

/** Each versioned write's own id, stored with it: how a write whose answer was lost is recognised. */
export const WRITE_ID = 'writeId';

const WRITE_ID_BYTES = 9;
/** Random bytes for write ids, drawn 512 ids at a time (as `randomUUID` does): a `randomBytes(9)` call per id took about 3 µs, a pooled id a tenth of that. */
const writeIdBytes = Buffer.alloc(WRITE_ID_BYTES * 512);
let writeIdBytesUsed = writeIdBytes.length;

/** 72 random bits, short: it rides on every versioned write (WRUs count bytes). */
export function newWriteId(): string {
  if (writeIdBytesUsed === writeIdBytes.length) {
    randomFillSync(writeIdBytes);
    writeIdBytesUsed = 0;
  }
  writeIdBytesUsed += WRITE_ID_BYTES;
  return writeIdBytes.toString('base64url', writeIdBytesUsed - WRITE_ID_BYTES, writeIdBytesUsed);
}

/**
 * Optimistic concurrency for a whole-item write: version 0 means "create", any other version must
 * match the stored one. The stored item gets `expectedVersion + 1`. An item whose id can be reused
 * after it expires (a job) also names its `incarnation`: a write decided on the expired item must
 * not replace a new one that happens to have reached the same version.
 */
export async function putVersioned<Item extends { version: number; incarnation?: string }>(
  doc: DynamoDBDocumentClient,
  tableName: string,
  key: { pk: string; sk: string },
  item: Item,
  expectedVersion: number,
  extraAttributes: Record<string, unknown> = {},
): Promise<Item> {
  const stored = { ...item, version: expectedVersion + 1 };
  const { incarnation } = item;
  const writeId = newWriteId();
  try {
    await sendPut(doc, {
      TableName: tableName,
      Item: { ...stored, ...extraAttributes, ...key, [WRITE_ID]: writeId },
      ...(expectedVersion === 0
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : {
            ConditionExpression: incarnation === undefined ? '#version = :expected' : '#version = :expected AND incarnation = :incarnation',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':expected': expectedVersion, ...(incarnation === undefined ? {} : { ':incarnation': incarnation }) },
          }),
    });
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    if (await landedAlready(doc, tableName, key, stored.version, writeId)) return stored;
    throw new VersionConflictError(`${key.pk}/${key.sk}`);
  }
  return stored;
}

/**
 * The SDK retries a write whose answer was lost (a timeout, a reset connection, a 500); if the first
 * try was applied, the retry fails its own condition. The item then carries this write's id: the
 * write happened, and deciding again on it would apply the decision twice (a takeover raising the
 * fence by two, a cancel answering 409 for its own change).
 */
export async function landedAlready(doc: DynamoDBDocumentClient, tableName: string, key: { pk: string; sk: string }, version: number, writeId: string): Promise<boolean> {
  const { Item } = await sendGet(doc, {
    TableName: tableName,
    Key: key,
    ConsistentRead: true,
    ProjectionExpression: '#version, #writeId',
    ExpressionAttributeNames: { '#version': 'version', '#writeId': WRITE_ID },
  });
  return Item?.['version'] === version && Item[WRITE_ID] === writeId;
}

/** Drops the storage-only attributes from an item read back. */
export function withoutStorageAttributes(item: Record<string, unknown>, extra: readonly string[] = []): Record<string, unknown> {
  const { pk: _pk, sk: _sk, timerShard: _shard, timerFenceToken: _fence, expiresAt: _ttl, gsiWorkerId: _worker, [WRITE_ID]: _write, ...rest } = item;
  for (const name of extra) delete rest[name];
  return rest;
}

/**
 * Runs a conditional create; when the item already exists (version conflict on create), answers the
 * existing item instead. The caller decides whether the existing one is the same submission.
 */
export async function createOrReturnExisting<Item>(
  create: () => Promise<Item>,
  loadExisting: () => Promise<Item | undefined>,
): Promise<{ created: true; job: Item } | { created: false; existing: Item }> {
  try {
    return { created: true, job: await create() };
  } catch (error) {
    if (!(error instanceof VersionConflictError)) throw error;
    const existing = await loadExisting();
    if (!existing) throw error;
    return { created: false, existing };
  }
}
