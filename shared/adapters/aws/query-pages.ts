import type { DynamoDBDocumentClient, QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { sendQuery } from './document-calls.js';

/**
 * A query's items, page after page, up to `maxItems` (every one by default). DynamoDB ends a page at
 * 1 MB whatever its `Limit` and names the key to go on from, so a page can hold fewer items than asked
 * though more match: each page asks for what is still missing, until that is read or nothing is left.
 * The first page starts after `input.ExclusiveStartKey`, if given.
 */
export async function queryItems(
  doc: DynamoDBDocumentClient,
  input: Omit<QueryCommandInput, 'Limit'>,
  maxItems = Number.POSITIVE_INFINITY,
): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let startKey = input.ExclusiveStartKey;
  do {
    const missing = maxItems - items.length;
    const page = await sendQuery(doc, { ...input, ExclusiveStartKey: startKey, ...(Number.isFinite(missing) ? { Limit: missing } : {}) });
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey && items.length < maxItems);
  return items;
}
