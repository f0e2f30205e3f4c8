import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GroupCommit } from '../../shared/adapters/aws/group-commit.js';
import { startTestDynamo } from '../support/dynalite.js';

// The history's puts share BatchWriteItem requests (group commit). What a caller can rely on must
// not change: its put resolves only once its items are stored, a failed request fails exactly the
// callers whose items it carried, and the later of two puts of one key wins.
describe('group commit of idempotent puts (dynalite)', () => {
  let dynamo: Awaited<ReturnType<typeof startTestDynamo>>;
  let doc: DynamoDBDocumentClient;
  const sent: string[] = [];
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    doc = DynamoDBDocumentClient.from(dynamo.client);
    dynamo.client.middlewareStack.add((next, context) => async (args) => {
      sent.push(context.commandName ?? '?');
      // A slow request: one carrying an item marked `slow` is held back 50 ms.
      if (/"slow":(true|{"BOOL":true})/.test(JSON.stringify(args.input))) await new Promise((resolve) => setTimeout(resolve, 50));
      return next(args);
    }, { step: 'initialize', name: 'countRequests' });
  });
  afterAll(async () => {
    await dynamo.close();
  });

  const read = async (table: string, pk: string, sk: string) => (await doc.send(new GetCommand({ TableName: table, Key: { pk, sk }, ConsistentRead: true }))).Item;

  it('30 concurrent puts of two items each go out in 3 requests, and each resolves with its items stored', async () => {
    // Prepare
    const table = await dynamo.table(false);
    const commits = new GroupCommit(doc, table);
    sent.length = 0;
    // Act
    await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        await commits.put([{ pk: `H#${i}`, sk: 'a', n: i }, { pk: `H#${i}`, sk: 'b', n: i }]);
        // Assess: stored by the time this caller's put resolves
        expect(await read(table, `H#${i}`, 'b')).toMatchObject({ n: i });
      }),
    );
    // Assess
    expect(sent.filter((name) => name === 'BatchWriteItemCommand')).toHaveLength(3);
  });

  it('random interleavings of puts of a few keys: the last put of each key is what is stored', async () => {
    const table = await dynamo.table(false);
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ key: fc.constantFrom('k0', 'k1', 'k2'), yieldFirst: fc.boolean() }), { minLength: 1, maxLength: 40 }),
        async (puts) => {
          // Prepare
          const commits = new GroupCommit(doc, table);
          const run = `${Math.random()}`;
          // Act: in call order, some after a turn of the event loop
          const done: Array<Promise<void>> = [];
          for (const [i, { key, yieldFirst }] of puts.entries()) {
            if (yieldFirst) await new Promise((resolve) => setImmediate(resolve));
            done.push(commits.put([{ pk: `P#${run}`, sk: key, seq: i }]));
          }
          await Promise.all(done);
          // Assess
          for (const key of new Set(puts.map((p) => p.key))) {
            const last = puts.map((p, i) => ({ ...p, i })).filter((p) => p.key === key).at(-1);
            expect((await read(table, `P#${run}`, key))?.['seq']).toBe(last?.i);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a put of a key an earlier, slower request is still writing goes out after it: the later put wins', async () => {
    // Prepare
    const table = await dynamo.table(false);
    const commits = new GroupCommit(doc, table);
    // Act: the first put's request is slow; the second, a turn later, would otherwise land first
    const first = commits.put([{ pk: 'O#1', sk: 'k', value: 'first', slow: true }]);
    await new Promise((resolve) => setImmediate(resolve));
    const second = commits.put([{ pk: 'O#1', sk: 'k', value: 'second' }]);
    await Promise.all([first, second]);
    // Assess
    expect(await read(table, 'O#1', 'k')).toMatchObject({ value: 'second' });
  });

  it('one call naming a key twice stores its last item (a batch may not name a key twice)', async () => {
    // Prepare
    const table = await dynamo.table(false);
    const commits = new GroupCommit(doc, table);
    // Act
    await commits.put([{ pk: 'D#1', sk: 'k', value: 1 }, { pk: 'D#1', sk: 'k', value: 2 }]);
    // Assess
    expect(await read(table, 'D#1', 'k')).toMatchObject({ value: 2 });
  });

  it('a request DynamoDB refuses fails the callers whose items it carried, and no other', async () => {
    // Prepare: a 500 KB item, over DynamoDB's 400 KB limit, shares a turn with a good put
    const table = await dynamo.table(false);
    const commits = new GroupCommit(doc, table);
    // Act
    const tooBig = commits.put([{ pk: 'F#1', sk: 'big', blob: 'x'.repeat(500_000) }]);
    const sameTurn = commits.put([{ pk: 'F#1', sk: 'small' }]);
    const [big, small] = await Promise.allSettled([tooBig, sameTurn]);
    const later = await commits.put([{ pk: 'F#2', sk: 'after' }]).then(() => 'stored');
    // Assess: the two shared a request, so both failed; the next turn's put is stored
    expect(big.status).toBe('rejected');
    expect(small.status).toBe('rejected');
    expect(later).toBe('stored');
    expect(await read(table, 'F#2', 'after')).toBeDefined();
  });
});
