import { CreateTableCommand, DescribeTableCommand, ResourceInUseException, type DynamoDBClient } from '@aws-sdk/client-dynamodb';

/**
 * Key design shared by the region manager's table and the gate's table:
 * pk/sk, a sparse `timers` index (only items with a pending wake-up carry `timerShard`/`timerDueAt`),
 * and, on the regional table, `byWorker` over workflow items. The CDK stacks declare the same.
 */
export const TIMER_INDEX = 'timers';
export const WORKER_INDEX = 'byWorker';
/**
 * On the regional table: pool items while they are `available`, and nothing else (sparse), keys
 * only, so a claim reads a few candidates whatever the pool's size (`dynamo-pool-store.ts`).
 */
export const AVAILABLE_INDEX = 'available';
export const AVAILABLE_INDEX_KEYS = { partition: 'availablePool', sort: 'availableKey' } as const;
/**
 * On the regional table: every row that names a pool (`poolId`), keyed by its sort key, carrying a
 * pool item's `state`, split-pending mark and metric counters (`stats`) and nothing else. A pool's
 * counts, its items in one state and its metrics are read here, whatever the items' payloads hold.
 * An entry is its keys (pk, sk, poolId: ~40 bytes with short ids, ~400 with 128-character ones),
 * ~150 bytes of counters for an item run once, and DynamoDB's 100 bytes an index entry: ~0.3 KB.
 * The counters are bounded (`ITEM_BOUNDS`): 32 command types counted by name, each of up to 64
 * characters (the contract's limit), and `(other)`; the last 10 executions; the last 10 timeouts,
 * each naming an agent id of up to 128 characters and a command type: 5.7 KB as DynamoDB counts
 * them (`largestStats` in the pool tests), so an entry is 6.3 KB at most, ~165 to a 1 MB page: a
 * pool of 10,000 is 3 pages typically and 60 at every bound, where the base table gives 9 items at
 * their largest per page (~110 KB each as stored), ~1,150 pages (`dynamo-pool-store.ts`).
 * Counts read the counters too: a page counts whole entries, whatever the query projects.
 */
export const POOL_ITEMS_INDEX = 'poolItems';
export const POOL_ITEMS_INDEX_KEYS = { partition: 'poolId', sort: 'sk' } as const;
/** A split whose subtasks are not created yet (it holds its pool open). */
export const SPLIT_PENDING_ATTRIBUTE = 'splitPending';
export const POOL_ITEMS_INDEX_ATTRIBUTES = ['state', SPLIT_PENDING_ATTRIBUTE, 'stats'];
export const TIMER_SHARDS = 16;
export const TTL_ATTRIBUTE = 'expiresAt';
/** Pools and their items live beside jobs under this key prefix (`shared/adapters/aws/dynamo-pool-store.ts`). */
export const POOL_KEY_PREFIX = 'POOL#';
/**
 * What the `timers` index carries besides its keys: enough to build the wake-up, nothing more, so
 * a write to a job item does not copy the whole item into the index.
 */
export const TIMER_INDEX_ATTRIBUTES = ['jobId', 'timerFenceToken'];

export async function ensureTable(client: DynamoDBClient, tableName: string, withWorkerIndex: boolean): Promise<void> {
  try {
    await client.send(
      new CreateTableCommand({
        TableName: tableName,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'timerShard', AttributeType: 'S' },
          { AttributeName: 'timerDueAt', AttributeType: 'N' },
          ...(withWorkerIndex
            ? [
                { AttributeName: 'gsiWorkerId', AttributeType: 'S' as const },
                { AttributeName: AVAILABLE_INDEX_KEYS.partition, AttributeType: 'S' as const },
                { AttributeName: AVAILABLE_INDEX_KEYS.sort, AttributeType: 'S' as const },
                { AttributeName: POOL_ITEMS_INDEX_KEYS.partition, AttributeType: 'S' as const },
              ]
            : []),
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        GlobalSecondaryIndexes: [
          {
            IndexName: TIMER_INDEX,
            KeySchema: [
              { AttributeName: 'timerShard', KeyType: 'HASH' },
              { AttributeName: 'timerDueAt', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: TIMER_INDEX_ATTRIBUTES },
          },
          ...(withWorkerIndex
            ? [
                {
                  IndexName: WORKER_INDEX,
                  KeySchema: [
                    { AttributeName: 'gsiWorkerId', KeyType: 'HASH' as const },
                    { AttributeName: 'pk', KeyType: 'RANGE' as const },
                  ],
                  Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: ['index'] },
                },
                {
                  IndexName: AVAILABLE_INDEX,
                  KeySchema: [
                    { AttributeName: AVAILABLE_INDEX_KEYS.partition, KeyType: 'HASH' as const },
                    { AttributeName: AVAILABLE_INDEX_KEYS.sort, KeyType: 'RANGE' as const },
                  ],
                  Projection: { ProjectionType: 'KEYS_ONLY' as const },
                },
                {
                  IndexName: POOL_ITEMS_INDEX,
                  KeySchema: [
                    { AttributeName: POOL_ITEMS_INDEX_KEYS.partition, KeyType: 'HASH' as const },
                    { AttributeName: POOL_ITEMS_INDEX_KEYS.sort, KeyType: 'RANGE' as const },
                  ],
                  Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: POOL_ITEMS_INDEX_ATTRIBUTES },
                },
              ]
            : []),
        ],
      }),
    );
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await waitUntilActive(client, tableName);
}

async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') return;
    if (Date.now() > deadline) throw new Error(`table ${tableName} did not become ACTIVE within 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Spreads wake-ups over a few index partitions so no single one runs hot. A finished item's wake-up
 * only retries its outbox (`outboxOnly`): it sits in a shard of its own set ("outbox-0" …), which the
 * sweep reads after every decision shard, so a bus outage's retries never stand before a running
 * job's lost wake-up. (Entries written before this split sit in the plain shards; they are swept as before.)
 */
export function timerShardOf(jobId: string, outboxOnly = false): string {
  let hash = 0;
  for (let i = 0; i < jobId.length; i++) hash = (hash * 31 + jobId.charCodeAt(i)) >>> 0;
  return `${outboxOnly ? OUTBOX_SHARD_PREFIX : ''}${hash % TIMER_SHARDS}`;
}

export const OUTBOX_SHARD_PREFIX = 'outbox-';
/** The index's shards in the order the sweep reads them: decisions first, then outbox retries. */
export const TIMER_SHARD_SETS: ReadonlyArray<readonly string[]> = [
  Array.from({ length: TIMER_SHARDS }, (_, shard) => String(shard)),
  Array.from({ length: TIMER_SHARDS }, (_, shard) => `${OUTBOX_SHARD_PREFIX}${shard}`),
];
