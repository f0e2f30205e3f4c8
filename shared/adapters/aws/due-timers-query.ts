import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { EpochMs } from '../../domain/time.js';
import type { TimerRequest } from '../../ports/timers.js';
import { POOL_KEY_PREFIX, TIMER_INDEX, TIMER_SHARDS } from './jobs-table.js';

/**
 * DynamoDB's `Limit` is a 32-bit integer; a larger one (restart recovery asks for "all" with
 * MAX_SAFE_INTEGER) makes dynalite answer an empty page. Pages are followed anyway.
 */
const PAGE_LIMIT = 1_000;

/** Reads overdue wake-ups from the sparse `timers` index, shard by shard. */
export async function queryDueTimers(
  doc: DynamoDBDocumentClient,
  tableName: string,
  scope: TimerRequest['scope'],
  dueBy: EpochMs,
  limit: number,
): Promise<TimerRequest[]> {
  const timers: TimerRequest[] = [];
  for (let shard = 0; shard < TIMER_SHARDS && timers.length < limit; shard++) {
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new QueryCommand({
          TableName: tableName,
          IndexName: TIMER_INDEX,
          KeyConditionExpression: 'timerShard = :shard AND timerDueAt <= :dueBy',
          ExpressionAttributeValues: { ':shard': String(shard), ':dueBy': dueBy },
          Limit: Math.min(PAGE_LIMIT, limit - timers.length),
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        // Pool items share the regional table's index; their key says which timers they are.
        const itemScope = String(item['pk']).startsWith(POOL_KEY_PREFIX) ? 'pool' : scope;
        timers.push({ scope: itemScope, jobId: String(item['jobId']), fenceToken: Number(item['timerFenceToken']), dueAt: Number(item['timerDueAt']) });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey && timers.length < limit);
  }
  return timers;
}
