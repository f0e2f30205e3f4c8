import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EpochMs } from '../../domain/time.js';
import type { TimerRequest } from '../../ports/timers.js';
import { POOL_KEY_PREFIX, TIMER_INDEX, TIMER_SHARDS } from './jobs-table.js';

/**
 * DynamoDB's `Limit` is a 32-bit integer; a larger one (restart recovery asks for "all" with
 * MAX_SAFE_INTEGER) makes dynalite answer an empty page. Pages are followed anyway.
 */
const PAGE_LIMIT = 1_000;

interface ShardCursor {
  shard: number;
  startKey?: Record<string, unknown>;
  done: boolean;
}

/**
 * Reads overdue wake-ups from the sparse `timers` index, oldest first within a shard, and fairly across
 * shards: every shard first gets an equal share of `limit`, then what is left goes round
 * robin to the shards that have more. A shard full of failing wake-ups cannot hide the others.
 */
export async function queryDueTimers(
  doc: DynamoDBDocumentClient,
  tableName: string,
  scope: TimerRequest['scope'],
  dueBy: EpochMs,
  limit: number,
): Promise<TimerRequest[]> {
  const timers: TimerRequest[] = [];
  const cursors: ShardCursor[] = Array.from({ length: TIMER_SHARDS }, (_, shard) => ({ shard, done: false }));
  const readPage = async (cursor: ShardCursor, pageLimit: number): Promise<TimerRequest[]> => {
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: TIMER_INDEX,
        KeyConditionExpression: 'timerShard = :shard AND timerDueAt <= :dueBy',
        ExpressionAttributeValues: { ':shard': String(cursor.shard), ':dueBy': dueBy },
        Limit: Math.min(PAGE_LIMIT, pageLimit),
        ExclusiveStartKey: cursor.startKey,
      }),
    );
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

  const share = Math.max(1, Math.floor(limit / TIMER_SHARDS));
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
