import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { DescribeTableCommand, type TableDescription } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AVAILABLE_INDEX, ensureTable, TIMER_INDEX, TIMER_INDEX_ATTRIBUTES, WORKER_INDEX } from '../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo, type LocalDynamo } from '../../shared/adapters/local/dynalite-server.js';

// The local DynamoDB maintains only the index entries a write changes (dynalite-index-upkeep.cjs),
// as DynamoDB does, where dynalite rewrites all of them. Whatever the writes, every index must hold
// exactly what the table's items project into it: a skipped write that should have happened (a
// projected attribute changed, a key moved, an entry appeared or left) shows up as a difference.

const TABLE = 'vigil-index-upkeep';

/** Each index's keys and the non-key attributes it carries (besides the table's pk/sk). */
const INDEXES = {
  [TIMER_INDEX]: { keys: ['timerShard', 'timerDueAt'], carries: TIMER_INDEX_ATTRIBUTES },
  [WORKER_INDEX]: { keys: ['gsiWorkerId', 'pk'], carries: ['index'] },
  [AVAILABLE_INDEX]: { keys: ['availablePool', 'availableKey'], carries: [] },
} as const;

/** Values drawn from a few, so writes often repeat what is stored (the case the upkeep skips). */
const attributes = {
  timerShard: fc.constantFrom('0', '1'),
  timerDueAt: fc.constantFrom(1, 2),
  timerFenceToken: fc.constantFrom(1, 2),
  jobId: fc.constantFrom('a', 'b'),
  gsiWorkerId: fc.constantFrom('w1', 'w2'),
  index: fc.constantFrom(0, 1),
  availablePool: fc.constantFrom('p1'),
  availableKey: fc.constantFrom('k1', 'k2'),
  lastProgressAt: fc.integer({ min: 0, max: 3 }),
  step: fc.constantFrom('s1', 's2'),
};
type Name = keyof typeof attributes;
const names = Object.keys(attributes) as Name[];

const someAttributes = fc.record(attributes, { requiredKeys: [] });
const itemKey = fc.constantFrom({ pk: 'JOB#a', sk: 'JOB' }, { pk: 'JOB#a', sk: 'WF#1' }, { pk: 'JOB#b', sk: 'WF#1' });

const write = fc.oneof(
  fc.record({ kind: fc.constant('put' as const), key: itemKey, set: someAttributes }),
  fc.record({ kind: fc.constant('update' as const), key: itemKey, set: someAttributes, remove: fc.subarray(names, { maxLength: 3 }) }),
  fc.record({ kind: fc.constant('delete' as const), key: itemKey }),
);
type Write = typeof write extends fc.Arbitrary<infer W> ? W : never;

let dynamo: LocalDynamo;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
  await ensureTable(dynamo.client, TABLE, true);
});
afterAll(() => dynamo.close());

async function apply(change: Write): Promise<void> {
  if (change.kind === 'delete') {
    await dynamo.doc.send(new DeleteCommand({ TableName: TABLE, Key: change.key }));
    return;
  }
  if (change.kind === 'put') {
    await dynamo.doc.send(new PutCommand({ TableName: TABLE, Item: { ...change.set, ...change.key } }));
    return;
  }
  const set = Object.entries(change.set).filter(([name]) => !change.remove.includes(name as Name));
  const clauses = [
    ...(set.length > 0 ? [`SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}`] : []),
    ...(change.remove.length > 0 ? [`REMOVE ${change.remove.map((name) => `#${name}`).join(', ')}`] : []),
  ];
  if (clauses.length === 0) return;
  const used = [...set.map(([name]) => name), ...change.remove];
  await dynamo.doc.send(
    new UpdateCommand({
      TableName: TABLE,
      Key: change.key,
      UpdateExpression: clauses.join(' '),
      ExpressionAttributeNames: Object.fromEntries(used.map((name) => [`#${name}`, name])),
      ...(set.length > 0 ? { ExpressionAttributeValues: Object.fromEntries(set.map(([name, value]) => [`:${name}`, value])) } : {}),
    }),
  );
}

const sorted = (items: Record<string, unknown>[]) => items.map((item) => JSON.stringify(item, Object.keys(item).sort())).sort();

async function scan(indexName?: string): Promise<Record<string, unknown>[]> {
  const { Items = [] } = await dynamo.doc.send(new ScanCommand({ TableName: TABLE, ...(indexName ? { IndexName: indexName } : {}) }));
  return Items;
}

/** What DynamoDB's index holds for these items: the ones with its keys, projected. */
function projected(items: Record<string, unknown>[], index: (typeof INDEXES)[keyof typeof INDEXES]): Record<string, unknown>[] {
  return items
    .filter((item) => index.keys.every((name) => item[name] !== undefined))
    .map((item) => {
      const kept = new Set<string>(['pk', 'sk', ...index.keys, ...index.carries]);
      return Object.fromEntries(Object.entries(item).filter(([name]) => kept.has(name)));
    });
}

describe('the local DynamoDB keeps its indexes as DynamoDB does, writing only the entries that change', () => {
  it('every index holds exactly the projection of the table after any writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(write, { minLength: 1, maxLength: 25 }), async (writes) => {
        for (const item of await scan()) await dynamo.doc.send(new DeleteCommand({ TableName: TABLE, Key: { pk: item['pk'], sk: item['sk'] } }));
        for (const change of writes) await apply(change);
        const items = await scan();
        for (const [indexName, index] of Object.entries(INDEXES)) {
          expect(sorted(await scan(indexName)), indexName).toEqual(sorted(projected(items, index)));
        }
      }),
      { numRuns: 150 },
    );
    // 150 runs of up to 25 writes and 4 scans each: seconds alone, over 20 s beside the other app files on two busy cores.
  }, 120_000);
});

/** dynalite's own index upkeep and key, as the local DynamoDB calls them on each write (after the install). */
type UpdateIndexes = (store: unknown, table: TableDescription, before: unknown, after: unknown, done: (error?: Error) => void) => void;
type CreateKey = (item: unknown, table: TableDescription) => string;
const dynaliteDb = (): { updateIndexes: UpdateIndexes; createKey: CreateKey } => {
  const localRequire = createRequire(import.meta.url);
  return localRequire(join(dirname(localRequire.resolve('dynalite')), 'db')) as { updateIndexes: UpdateIndexes; createKey: CreateKey };
};

type LevelWrite = { type: 'put' | 'del'; key: string };
type Done = (error?: Error) => void;

/**
 * One item write as dynalite makes it: its index upkeep, then the item's own write, on a store that
 * records every LevelDB write. Answers each LevelDB write as the sub-databases it touches.
 */
async function levelWrites(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): Promise<string[][]> {
  const { Table } = await dynamo.client.send(new DescribeTableCommand({ TableName: TABLE }));
  const table = Table as TableDescription;
  const writes: string[][] = [];
  const named = (write: LevelWrite) => `${write.type === 'put' ? 'put' : 'delete'} ${write.key.startsWith('index-') ? write.key.split('~')[2] : 'item'}`;
  const itemDb = {
    put: (key: string, _item: unknown, done: Done) => (writes.push([named({ type: 'put', key: `item-${TABLE}~${key}` })]), done()),
    del: (key: string, done: Done) => (writes.push([named({ type: 'del', key: `item-${TABLE}~${key}` })]), done()),
  };
  const store = { getItemDb: () => itemDb, db: { batch: (batch: LevelWrite[], done: Done) => (writes.push(batch.map(named)), done()) } };
  await new Promise<void>((resolve, reject) => dynaliteDb().updateIndexes(store, table, before, after, (error) => (error ? reject(error) : resolve())));
  const key = dynaliteDb().createKey(after ?? before, table);
  await new Promise<void>((resolve) => (after ? itemDb.put(key, after, () => resolve()) : itemDb.del(key, () => resolve())));
  return writes;
}

describe('a write that leaves an index entry as it was', () => {
  const workflow = { pk: { S: 'JOB#a' }, sk: { S: 'WF#1' }, gsiWorkerId: { S: 'w1' }, index: { N: '0' }, step: { S: 's1' } };

  it('writes no index entry (a progress report on a workflow item), and one that changes it writes that index only', async () => {
    expect(await levelWrites(workflow, { ...workflow, step: { S: 's2' }, lastProgressAt: { N: '5' } })).toEqual([['put item']]);
    expect(await levelWrites(workflow, { ...workflow, index: { N: '1' } })).toEqual([[`put ${WORKER_INDEX}`, 'put item']]);
    expect(await levelWrites(workflow, { ...workflow, gsiWorkerId: { S: 'w2' } })).toEqual([[`delete ${WORKER_INDEX}`, `put ${WORKER_INDEX}`, 'put item']]);
    const { gsiWorkerId: _left, ...unlisted } = workflow;
    expect(await levelWrites(workflow, unlisted)).toEqual([[`delete ${WORKER_INDEX}`, 'put item']]);
    expect(await levelWrites(unlisted, { ...unlisted, timerShard: { S: '1' }, timerDueAt: { N: '9' } })).toEqual([[`put ${TIMER_INDEX}`, 'put item']]);
  });

  // Restart review: dynalite wrote the old index entry's delete, the new entry and the item as three
  // LevelDB writes; a process killed between them kept a RUNNING job with no `timers` entry, which no
  // restart re-arm and no sweep could find again. LevelDB applies one batch whole or not at all.
  it("writes an item and its index changes in one LevelDB batch, a delete's too", async () => {
    const job = { pk: { S: 'JOB#a' }, sk: { S: 'JOB' }, timerShard: { S: '0' }, timerDueAt: { N: '5' } };
    expect(await levelWrites(job, { ...job, timerDueAt: { N: '9' } })).toEqual([[`delete ${TIMER_INDEX}`, `put ${TIMER_INDEX}`, 'put item']]);
    expect(await levelWrites(job, undefined)).toEqual([[`delete ${TIMER_INDEX}`, 'delete item']]);
  });
});
