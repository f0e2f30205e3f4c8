import { randomUUID } from 'node:crypto';
import { CreateTableCommand, type DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { ensureTable, POOL_ITEMS_INDEX, SPLIT_PENDING_ATTRIBUTE } from '../../../shared/adapters/aws/jobs-table.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { listDeadLetters } from '../../../shared/app/pools/dead-letters.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { poolMetrics } from '../../../shared/app/pools/pool-metrics.js';
import { ITEM_BOUNDS, newPoolItem, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import type { DynamoCall, TestManager } from '../support/test-manager.js';
import { useTestManager } from '../support/test-manager.js';
import { largestItem, longId } from './largest-items.js';
import { claim, newPool, send } from './pool-test-support.js';

const SETTLED = 60;

interface Reads {
  /** Query pages over the pool's ITEM# rows on the table: each reads up to 1 MB of whole items. */
  tablePages: number;
  /** Query pages on the `poolItems` index: ~0.3 KB an item, 6.3 KB with every counter at its bound, whatever the payloads. */
  indexPages: number;
  /** Items read by key (GetItem, BatchGetItem keys). */
  itemsReadByKey: number;
}

const isItemKey = (key: unknown) => String((key as { sk?: unknown } | undefined)?.sk ?? '').startsWith('ITEM#');

function readsSince(calls: readonly DynamoCall[], from: number): Reads {
  const since = calls.slice(from);
  const queries = since.filter((call) => call.command === 'QueryCommand');
  const batchKeys = since
    .filter((call) => call.command === 'BatchGetCommand')
    .flatMap((call) => Object.values(call.input['RequestItems'] as Record<string, { Keys: unknown[] }>).flatMap((request) => request.Keys));
  return {
    tablePages: queries.filter((call) => call.input['IndexName'] === undefined && (call.input['ExpressionAttributeValues'] as Record<string, unknown>)[':items'] === 'ITEM#').length,
    indexPages: queries.filter((call) => call.input['IndexName'] === POOL_ITEMS_INDEX).length,
    itemsReadByKey: since.filter((call) => call.command === 'GetCommand' && isItemKey(call.input.Key)).length + batchKeys.filter(isItemKey).length,
  };
}

const SIZES = {
  /** Every bounded field at its bound, metric counters too (~200 KB an item): on the table, 61 of them are 7 pages of 1 MB. */
  largest: (poolId: string, itemId: string) => largestItem(poolId, itemId, 'succeeded'),
  small: (poolId: string, itemId: string): PoolItem => ({ ...newPoolItem(poolId, itemId, { n: 1 }), state: 'succeeded' }),
};

/** A pool whose one item `last` is claimed, and `SETTLED` other items already succeeded, each of the given size. */
async function poolAtItsTail(deps: ManagerDeps, poolId: string, size: keyof typeof SIZES) {
  await newPool(deps, { agent_timeout_secs: 600 }, ['last'], poolId);
  const agent = await claim(deps, 'agent-a', poolId);
  await deps.pools.createItems(Array.from({ length: SETTLED }, (_, i) => SIZES[size](poolId, longId('done', i))));
  return agent;
}

/** What one use case reads in a pool of the largest items, and in the same pool of small ones. */
async function readsAtBothSizes(m: TestManager, act: (poolId: string, agent: Awaited<ReturnType<typeof claim>>) => Promise<unknown>) {
  const reads: Partial<Record<keyof typeof SIZES, Reads>> = {};
  for (const size of ['largest', 'small'] as const) {
    const agent = await poolAtItsTail(m.deps, `p-${size}`, size);
    const before = m.calls.length;
    await act(`p-${size}`, agent);
    reads[size] = readsSince(m.calls, before);
  }
  return reads;
}

/**
 * A table (recorded in `m.calls`) whose `poolItems` index projects what it did before it carried the
 * metric counters: a local data dir's table keeps the projection it was created with.
 */
async function tableWithIndexBeforeStats(m: TestManager): Promise<string> {
  const tableName = `vigil-test-${randomUUID().slice(0, 8)}`;
  const client = {
    send: (command: CreateTableCommand) => {
      if (!(command instanceof CreateTableCommand)) return m.dynamo.client.send(command);
      const indexes = command.input.GlobalSecondaryIndexes?.map((index) =>
        index.IndexName === POOL_ITEMS_INDEX ? { ...index, Projection: { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: ['state', SPLIT_PENDING_ATTRIBUTE] } } : index,
      );
      return m.dynamo.client.send(new CreateTableCommand({ ...command.input, GlobalSecondaryIndexes: indexes }));
    },
  };
  await ensureTable(client as unknown as DynamoDBClient, tableName, true);
  return tableName;
}

// Counts, the items in one state and the metrics come from the pool's `poolItems` index (state, split
// mark and metric counters only), never from a Query of the pool's ITEM# rows: DynamoDB's 1 MB page
// counts what it reads before the projection, so that Query took ~1,150 sequential pages for 10,000
// items at their bounds, past the agent API's 10 s and the client API's 29 s. Whole items are read by key only for what is
// answered (a DLQ page, the running items) or to confirm what the index shows open.
describe('pools on dynalite: reads of a whole pool do not grow with what its items hold', () => {
  const m = useTestManager();

  it("the last item's completion counts the pool on its index: one index page and no other item read, for large items as for small", async () => {
    // Act
    const reads = await readsAtBothSizes(m, (poolId, agent) => send(m.deps, agent, { type: 'complete', outcome: 'succeeded' }, poolId));
    // Assess
    expect((await m.deps.pools.getPool('p-largest'))?.status).toBe('COMPLETED');
    // the two reads by key are the completing item's own (the call's, and its follow-ups' clearing)
    expect(reads.largest).toEqual({ tablePages: 0, indexPages: 1, itemsReadByKey: 2 });
    expect(reads.largest).toEqual(reads.small);
  }, 120_000);

  it('GET /pools/{poolId} counts on the index, reading back only the one item it shows running', async () => {
    const reads = await readsAtBothSizes(m, (poolId) => getPool(m.deps, poolId));
    expect(reads.largest).toEqual({ tablePages: 0, indexPages: 1, itemsReadByKey: 1 });
    expect(reads.small).toEqual(reads.largest);
  }, 120_000);

  it('GET /pools/{poolId}/dlq with nothing dead-lettered reads one index page and no item', async () => {
    const reads = await readsAtBothSizes(m, async (poolId) => expect((await listDeadLetters(m.deps, poolId, {})).items).toEqual([]));
    expect(reads.largest).toEqual({ tablePages: 0, indexPages: 1, itemsReadByKey: 0 });
    expect(reads.small).toEqual(reads.largest);
  }, 120_000);

  it('a checkpoint collection and a cancel find the one running agent on the index and read only its item', async () => {
    const collect = await readsAtBothSizes(m, (poolId) => startCollection(m.deps, poolId));
    const cancelReads: Reads[] = [];
    for (const poolId of ['p-largest', 'p-small']) {
      const before = m.calls.length;
      await cancelPool(m.deps, poolId, undefined);
      cancelReads.push(readsSince(m.calls, before));
    }
    // the one read by key is the running candidate's read back, which the decision asking (or waking) it reuses
    expect(collect.largest).toEqual({ tablePages: 0, indexPages: 1, itemsReadByKey: 1 });
    expect(collect.small).toEqual(collect.largest);
    expect(cancelReads).toEqual([
      { tablePages: 0, indexPages: 1, itemsReadByKey: 1 },
      { tablePages: 0, indexPages: 1, itemsReadByKey: 1 },
    ]);
  }, 120_000);

  it('GET /pools/{poolId}/metrics sums the counters on the index: no page of the ITEM# rows and one index page, for items at their largest as for small ones', async () => {
    // Act
    const reads = await readsAtBothSizes(m, (poolId) => poolMetrics(m.deps, poolId));
    // Assess: the largest items' counters are all read (each keeps its last timeouts)
    expect(reads.largest).toEqual({ tablePages: 0, indexPages: 1, itemsReadByKey: 0 });
    expect(reads.small).toEqual(reads.largest);
    expect((await poolMetrics(m.deps, 'p-largest')).recentTimeouts).toHaveLength(SETTLED * ITEM_BOUNDS.recentTimeouts);
  }, 120_000);

  it('on a local table whose index predates the counters (the index answers without them), GET …/metrics reads the table as before and answers the same', async () => {
    // Prepare: the same pool of items at their largest on a current table and on one whose index projects state and split mark only
    const before = await tableWithIndexBeforeStats(m);
    const deps = { ...m.deps, pools: new DynamoPoolStore(m.doc, before) };
    await poolAtItsTail(m.deps, 'p', 'largest');
    await poolAtItsTail(deps, 'p', 'largest');
    // Act
    const onIndex = await poolMetrics(m.deps, 'p');
    const from = m.calls.length;
    const onTable = await poolMetrics(deps, 'p');
    // Assess: one index page shows the counters missing; the rest is the table's 7 pages, as before the index carried them
    expect(readsSince(m.calls, from)).toEqual({ tablePages: 7, indexPages: 1, itemsReadByKey: 0 });
    expect(onTable).toEqual(onIndex);
    expect(onTable.recentTimeouts).toHaveLength(SETTLED * ITEM_BOUNDS.recentTimeouts);
  }, 120_000);

  it('on a table created before the index existed (a local data dir; dynalite cannot add one), the same reads fall back to the table and still answer', async () => {
    // Prepare: a and b claimed; a completes, b times out into the DLQ
    const tableName = await m.dynamo.table(false);
    const deps = { ...m.deps, pools: new DynamoPoolStore(m.doc, tableName) };
    await newPool(deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } }, ['a', 'b', 'c']);
    const first = await claim(deps, 'agent-a');
    const second = await claim(deps, 'agent-b');
    // Act
    await send(deps, first, { type: 'complete', outcome: 'succeeded' });
    const running = await getPool(deps, 'p');
    await cancelPool(deps, 'p', undefined);
    const dlq = await listDeadLetters(deps, 'p', {});
    const metrics = await poolMetrics(deps, 'p');
    // Assess
    expect(running.counts).toMatchObject({ available: 1, running: 1, succeeded: 1 });
    // found running by the cancel and told to terminate; with no grace period it ended there and then
    const stopped = await deps.pools.getItem('p', second.itemId);
    expect(stopped).toMatchObject({ state: 'available', reason: 'pool_stopped' });
    expect(stopped?.history.at(-1)).toMatchObject({ resolution: 'force', endedAt: m.clock.now() });
    expect(dlq.items).toEqual([]);
    expect(metrics).toMatchObject({ agentsStarted: 2, agentsCompleted: 1 });
  });
});
