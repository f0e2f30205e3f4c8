import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendBatchGet, sendBatchWrite } from './document-calls.js';

const MAX_ATTEMPTS = 8;
const backoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.min(1_000, 20 * 2 ** attempt)));

/** BatchWriteItem in chunks of 25, retrying unprocessed items with backoff. */
export async function batchPut(doc: DynamoDBDocumentClient, tableName: string, items: readonly Record<string, unknown>[]) {
  for (let start = 0; start < items.length; start += 25) {
    let requests = items.slice(start, start + 25).map((Item) => ({ PutRequest: { Item } }));
    for (let attempt = 0; requests.length > 0; attempt++) {
      if (attempt >= MAX_ATTEMPTS) throw new Error(`BatchWriteItem left ${requests.length} items unprocessed on ${tableName}`);
      if (attempt > 0) await backoff(attempt);
      const result = await sendBatchWrite(doc, { RequestItems: { [tableName]: requests } });
      requests = (result.UnprocessedItems?.[tableName] ?? []) as typeof requests;
    }
  }
}

/** Strongly consistent BatchGetItem (≤ 100 keys), retrying unprocessed keys. */
export async function batchGet(
  doc: DynamoDBDocumentClient,
  tableName: string,
  keys: ReadonlyArray<{ pk: string; sk: string }>,
  projection?: { expression: string; names: Record<string, string> },
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  let pending = [...keys];
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt >= MAX_ATTEMPTS) throw new Error(`BatchGetItem left ${pending.length} keys unprocessed on ${tableName}`);
    if (attempt > 0) await backoff(attempt);
    const result = await sendBatchGet(doc, {
      RequestItems: {
        [tableName]: {
          Keys: pending,
          ConsistentRead: true,
          ...(projection ? { ProjectionExpression: projection.expression, ExpressionAttributeNames: projection.names } : {}),
        },
      },
    });
    found.push(...(result.Responses?.[tableName] ?? []));
    pending = (result.UnprocessedKeys?.[tableName]?.Keys ?? []) as typeof pending;
  }
  return found;
}
