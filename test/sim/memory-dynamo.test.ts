import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, BatchWriteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureTable, TIMER_INDEX, WORKER_INDEX } from '../../shared/adapters/aws/jobs-table.js';
import { MemoryDynamo } from '../../shared/simulation/dynamo/memory-dynamo.js';
import { startTestDynamo } from '../support/dynalite.js';

interface Backend {
  doc: DynamoDBDocumentClient;
  table(): Promise<string>;
  close(): Promise<void>;
}

const backends: Array<[string, () => Promise<Backend>]> = [
  [
    'dynalite',
    async () => {
      const dynamo = await startTestDynamo();
      return { doc: dynamo.doc, table: () => dynamo.table(true), close: () => dynamo.close() };
    },
  ],
  [
    'in-memory',
    async () => {
      const memory = new MemoryDynamo();
      return {
        doc: memory.doc,
        table: async () => {
          const name = `vigil-test-${randomUUID().slice(0, 8)}`;
          await ensureTable(memory.client, name, true);
          return name;
        },
        close: async () => {},
      };
    },
  ],
];

// One suite, run on dynalite and on the simulator's in-memory store: the store behaves as dynalite does.
describe.each(backends)('DynamoDB semantics the adapters rely on (%s)', (_name, start) => {
  let backend: Backend;
  let table: string;
  beforeAll(async () => {
    backend = await start();
  });
  afterAll(async () => backend.close());

  const put = (Item: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
    backend.doc.send(new PutCommand({ TableName: table, Item, ...extra }));
  const get = async (pk: string, sk: string) =>
    (await backend.doc.send(new GetCommand({ TableName: table, Key: { pk, sk }, ConsistentRead: true }))).Item;

  it('a conditional create fails when the item exists, and changes nothing', async () => {
    table = await backend.table();
    await put({ pk: 'a', sk: 'x', version: 1 }, { ConditionExpression: 'attribute_not_exists(pk)' });
    await expect(put({ pk: 'a', sk: 'x', version: 9 }, { ConditionExpression: 'attribute_not_exists(pk)' })).rejects.toBeInstanceOf(
      ConditionalCheckFailedException,
    );
    expect(await get('a', 'x')).toEqual({ pk: 'a', sk: 'x', version: 1 });
  });

  it('a versioned put succeeds only on the expected version', async () => {
    table = await backend.table();
    await put({ pk: 'a', sk: 'x', version: 1 });
    const versioned = (version: number, expected: number) =>
      put(
        { pk: 'a', sk: 'x', version },
        { ConditionExpression: '#v = :e', ExpressionAttributeNames: { '#v': 'version' }, ExpressionAttributeValues: { ':e': expected } },
      );
    await expect(versioned(3, 2)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await versioned(2, 1);
    expect((await get('a', 'x'))?.['version']).toBe(2);
  });

  it('updates nested paths and counters under a compound condition', async () => {
    table = await backend.table();
    await put({ pk: 'j', sk: 'JOB', status: 'RUNNING', version: 4, tracking: { lastProgressAt: 100 } });
    const touch = (at: number) =>
      backend.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: 'j', sk: 'JOB' },
          UpdateExpression: 'SET tracking.lastProgressAt = :at, #version = #version + :one',
          ConditionExpression: '#status = :running AND tracking.lastProgressAt < :at',
          ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
          ExpressionAttributeValues: { ':at': at, ':running': 'RUNNING', ':one': 1 },
        }),
      );
    await touch(200);
    await expect(touch(150)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect(await get('j', 'JOB')).toMatchObject({ version: 5, tracking: { lastProgressAt: 200 } });
  });

  it('an OR of attribute_not_exists and a comparison; an update of a missing item needs attribute_exists to fail', async () => {
    table = await backend.table();
    const update = (sk: string, at: number) =>
      backend.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: 'w', sk },
          UpdateExpression: 'SET lastProgressAt = :at',
          ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastProgressAt) OR lastProgressAt < :at)',
          ExpressionAttributeValues: { ':at': at },
        }),
      );
    await expect(update('missing', 5)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    await put({ pk: 'w', sk: 'one' });
    await update('one', 5);
    await expect(update('one', 4)).rejects.toBeInstanceOf(ConditionalCheckFailedException);
    expect(await get('w', 'one')).toEqual({ pk: 'w', sk: 'one', lastProgressAt: 5 });
  });


  it('an update answers the item it replaced with ReturnValues ALL_OLD (a report takes back exactly its own write)', async () => {
    table = await backend.table();
    const update = (step: string) =>
      backend.doc.send(
        new UpdateCommand({
          TableName: table,
          Key: { pk: 'w', sk: 'old' },
          UpdateExpression: 'SET #step = :step REMOVE progress',
          ExpressionAttributeNames: { '#step': 'step' },
          ExpressionAttributeValues: { ':step': step },
          ReturnValues: 'ALL_OLD',
        }),
      );
    await put({ pk: 'w', sk: 'old', step: 'a', progress: 0.5 });
    expect((await update('b')).Attributes).toEqual({ pk: 'w', sk: 'old', step: 'a', progress: 0.5 });
    expect((await update('c')).Attributes).toEqual({ pk: 'w', sk: 'old', step: 'b' });
  });
  it('queries a partition in sort-key order, page by page with Limit', async () => {
    table = await backend.table();
    for (const sk of ['c', 'a', 'b']) await put({ pk: 'p', sk });
    const page = (ExclusiveStartKey?: Record<string, unknown>) =>
      backend.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': 'p' },
          Limit: 2,
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
    const first = await page();
    expect(first.Items?.map((i) => i['sk'])).toEqual(['a', 'b']);
    expect(first.LastEvaluatedKey).toEqual({ pk: 'p', sk: 'b' });
    const second = await page(first.LastEvaluatedKey);
    expect(second.Items?.map((i) => i['sk'])).toEqual(['c']);
  });

  it('a query filters after Limit (the filtered-out items still end the page) and projects the named attributes', async () => {
    // Prepare: the pool store's claims, DLQ pages and counts read items this way.
    table = await backend.table();
    for (const [sk, state] of [['i1', 'dlq'], ['i2', 'available'], ['i3', 'dlq'], ['i4', 'running']]) await put({ pk: 'p', sk, state, itemId: sk, big: 'x' });
    const page = (ExclusiveStartKey?: Record<string, unknown>) =>
      backend.doc.send(
        new QueryCommand({
          TableName: table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :i)',
          FilterExpression: '#state = :state',
          ProjectionExpression: 'itemId, #state',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':pk': 'p', ':i': 'i', ':state': 'dlq' },
          Limit: 2,
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
    // Act
    const first = await page();
    const second = await page(first.LastEvaluatedKey);
    // Assess
    expect(first.Items).toEqual([{ itemId: 'i1', state: 'dlq' }]);
    expect(first.ScannedCount).toBe(2);
    expect(first.LastEvaluatedKey).toEqual({ pk: 'p', sk: 'i2' });
    expect(second.Items).toEqual([{ itemId: 'i3', state: 'dlq' }]);
  });

  it('a sparse index holds only items with its keys, projects only what it includes, and refuses consistent reads', async () => {
    table = await backend.table();
    await put({ pk: 'JOB#1', sk: 'JOB', jobId: '1', timerShard: '3', timerDueAt: 50, timerFenceToken: 2, big: 'x' });
    await put({ pk: 'JOB#2', sk: 'JOB', jobId: '2', timerShard: '3', timerDueAt: 500, timerFenceToken: 1 });
    await put({ pk: 'JOB#3', sk: 'JOB', jobId: '3' });
    const due = await backend.doc.send(
      new QueryCommand({
        TableName: table,
        IndexName: TIMER_INDEX,
        KeyConditionExpression: 'timerShard = :shard AND timerDueAt <= :dueBy',
        ExpressionAttributeValues: { ':shard': '3', ':dueBy': 100 },
      }),
    );
    expect(due.Items).toEqual([{ pk: 'JOB#1', sk: 'JOB', jobId: '1', timerShard: '3', timerDueAt: 50, timerFenceToken: 2 }]);
    await expect(
      backend.doc.send(
        new QueryCommand({
          TableName: table,
          IndexName: WORKER_INDEX,
          KeyConditionExpression: 'gsiWorkerId = :w',
          ExpressionAttributeValues: { ':w': 'x' },
          ConsistentRead: true,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('batch writes and strongly consistent batch gets', async () => {
    table = await backend.table();
    await backend.doc.send(
      new BatchWriteCommand({ RequestItems: { [table]: [{ PutRequest: { Item: { pk: 'b', sk: '1' } } }, { PutRequest: { Item: { pk: 'b', sk: '2' } } }] } }),
    );
    const result = await backend.doc.send(
      new BatchGetCommand({ RequestItems: { [table]: { Keys: [{ pk: 'b', sk: '1' }, { pk: 'b', sk: '2' }, { pk: 'b', sk: '3' }], ConsistentRead: true } } }),
    );
    expect(result.Responses?.[table]?.map((i) => i['sk']).sort()).toEqual(['1', '2']);
  });

  it('refuses an item over 400 KB and keeps the old one', async () => {
    table = await backend.table();
    await put({ pk: 'big', sk: 'x', payload: 'small' });
    await expect(put({ pk: 'big', sk: 'x', payload: 'y'.repeat(410 * 1024) })).rejects.toMatchObject({ name: 'ValidationException' });
    expect((await get('big', 'x'))?.['payload']).toBe('small');
  });
});

describe('the simulator bills an index write as DynamoDB does', () => {
  it('a unit per started KB of the index entry: a 3 KB projected attribute makes a write of the entry 3 units, and a write that leaves the entry as it was none', async () => {
    // Prepare: a timer entry carries `timerFenceToken`; the table's own write is 4 KB in each case
    const memory = new MemoryDynamo();
    await ensureTable(memory.client, 'vigil-test-units', true);
    const timerEntry = (fence: unknown, other: string) => ({ pk: 'JOB#1', sk: 'JOB', jobId: '1', timerShard: '3', timerDueAt: 50, timerFenceToken: fence, other });
    const writeUnits = async (item: Record<string, unknown>) => {
      const before = memory.usage.writeUnits;
      await memory.doc.send(new PutCommand({ TableName: 'vigil-test-units', Item: item }));
      return memory.usage.writeUnits - before;
    };
    const table = 4;
    // Act
    const small = await writeUnits(timerEntry(1, 'x'.repeat(3_900)));
    const large = await writeUnits(timerEntry('f'.repeat(2_900), 'x'.repeat(1_000)));
    const unchanged = await writeUnits(timerEntry('f'.repeat(2_900), 'y'.repeat(1_000)));
    // Assess
    expect([small, large, unchanged]).toEqual([table + 1, table + 3, table]);
  });
});
