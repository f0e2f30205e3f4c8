import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendQuery } from './document-calls.js';
import type { EpochMs } from '../../domain/time.js';
import type { DueWakeUp, TimerRequest } from '../../ports/timers.js';
import { POOL_KEY_PREFIX, TIMER_INDEX, TIMER_SHARD_SETS } from './jobs-table.js';

/**
 * DynamoDB's `Limit` is a 32-bit integer; a larger one (restart recovery asks for "all" with
 * MAX_SAFE_INTEGER) makes dynalite answer an empty page. Pages are followed anyway.
 */
const PAGE_LIMIT = 1_000;

interface ShardCursor {
  shard: string;
  startKey?: Record<string, unknown>;
  done: boolean;
}

/**
 * Reads overdue wake-ups from the sparse `timers` index, oldest first within a shard, and fairly across
 * shards: every shard first gets an equal share of `limit`, then what is left goes round robin to the
 * shards that have more. A shard full of failing wake-ups cannot hide the others. The decision shards
 * come first; the outbox shards (finished items' retries) only get what they leave of `limit`.
 */
export async function queryDueTimers(
  doc: DynamoDBDocumentClient,
  tableName: string,
  scope: TimerRequest['scope'],
  dueBy: EpochMs,
  limit: number,
): Promise<DueWakeUp[]> {
  const timers: DueWakeUp[] = [];
  for (const [set, shards] of TIMER_SHARD_SETS.entries()) {
    if (timers.length >= limit) break;
    const found = await queryShards(doc, tableName, scope, shards, dueBy, limit - timers.length);
    timers.push(...(set === 0 ? found : found.map((timer) => ({ ...timer, outboxOnly: true }))));
  }
  return timers;
}

async function queryShards(
  doc: DynamoDBDocumentClient,
  tableName: string,
  scope: TimerRequest['scope'],
  shards: readonly string[],
  dueBy: EpochMs,
  limit: number,
): Promise<TimerRequest[]> {
  const timers: TimerRequest[] = [];
  const cursors: ShardCursor[] = shards.map((shard) => ({ shard, done: false }));
  const readPage = async (cursor: ShardCursor, pageLimit: number): Promise<TimerRequest[]> => {
    const page = await sendQuery(doc, {
      TableName: tableName,
      IndexName: TIMER_INDEX,
      KeyConditionExpression: 'timerShard = :shard AND timerDueAt <= :dueBy',
      ExpressionAttributeValues: { ':shard': cursor.shard, ':dueBy': dueBy },
      Limit: Math.min(PAGE_LIMIT, pageLimit),
      ExclusiveStartKey: cursor.startKey,
    });
    cursor.startKey = page.LastEvaluatedKey;
    cursor.done = page.LastEvaluatedKey === undefined;
    return (page.Items ?? []).map((item) => ({
      // Pool items share the regional table's index; their key says which timers they are.
      scope: String(item['pk']).startsWith(POOL_KEY_PREFIX) ? ('pool' as const) : scope,
      jobId: String(item['jobId']),
      fenceToken: Number(item['timerFenceToken']),
      dueAt: Number(item['timerDueAt']),
    }));
  };

  const share = Math.max(1, Math.floor(limit / shards.length));
  for (const page of await Promise.all(cursors.map((cursor) => readPage(cursor, share)))) timers.push(...page);
  while (timers.length < limit) {
    const open = cursors.filter((cursor) => !cursor.done);
    if (open.length === 0) break;
    for (const cursor of open) {
      if (timers.length >= limit) break;
      timers.push(...(await readPage(cursor, Math.max(1, Math.min(share, limit - timers.length)))));
    }
  }
  return timers.slice(0, limit);
}
