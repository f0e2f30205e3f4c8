import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../../shared/adapters/aws/dynamo-pool-store.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { claimItem } from '../../shared/domain/pools/claim-item.js';
import { countStates } from '../../shared/domain/pools/item-census.js';
import { resolvePoolConfig } from '../../shared/domain/pools/pool-config.js';
import { itemTimerId, newPoolItem } from '../../shared/domain/pools/pool-item.js';
import type { Pool } from '../../shared/domain/pools/pool.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { uniqueName } from '../support/aws-test-resources.js';
import { describeWithEmulator, type EmulatorClientConfig } from '../support/emulator.js';

const T0 = Date.UTC(2031, 0, 15, 10, 0, 0, 0);

/** A table of its own, through the store's own table definition (the sparse timer index included). */
async function freshStores(clientConfig: EmulatorClientConfig) {
  const client = new DynamoDBClient(clientConfig);
  const tableName = uniqueName('vigil-pools');
  await ensureTable(client, tableName, true);
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { pools: new DynamoPoolStore(doc, tableName), jobs: new DynamoJobStore(doc, tableName) };
}

const poolOf = (poolId: string, hash = 'h1'): Pool => ({
  poolId,
  status: 'RUNNING',
  config: resolvePoolConfig({ agent_timeout_secs: 60 }),
  itemCount: 3,
  createdAt: T0,
  submissionHash: hash,
  version: 0,
});
const itemsOf = (poolId: string) => ['a', 'b', 'c'].map((itemId) => newPoolItem(poolId, itemId, { itemId }));
async function createPool(pools: DynamoPoolStore, pool: Pool) {
  const put = await pools.putNewPool(pool);
  await pools.createItems(itemsOf(pool.poolId));
  return put;
}

describeWithEmulator('DynamoDB pool store: conditional writes, claims, the timer index', (emulator) => {
  it('creates a pool and its items once; a second create answers the stored pool', async () => {
    // Prepare
    const { pools } = await freshStores(emulator.clientConfig());
    // Act
    const first = await createPool(pools, poolOf('p1'));
    const second = await pools.putNewPool(poolOf('p1', 'other'));
    // Assess
    expect(first.created).toBe(true);
    expect(second).toMatchObject({ created: false, existing: { poolId: 'p1', submissionHash: 'h1', version: 1 } });
    expect(countStates(await pools.itemStates('p1', 'index'))).toMatchObject({ available: 3, running: 0 });
  });

  it('of two claims decided on the same version exactly one is written; the loser gets a version conflict', async () => {
    // Prepare
    const { pools } = await freshStores(emulator.clientConfig());
    const pool = poolOf('p2');
    await createPool(pools, pool);
    const item = await pools.getItem('p2', 'a');
    if (!item) throw new Error('item a missing');
    const forA = claimItem(item, pool, { agentId: 'agent-a', kind: 'agent' }, T0).state;
    const forB = claimItem(item, pool, { agentId: 'agent-b', kind: 'agent' }, T0).state;
    // Act
    await pools.saveItem(forA, item.version);
    const lost = pools.saveItem(forB, item.version);
    // Assess
    await expect(lost).rejects.toBeInstanceOf(VersionConflictError);
    expect((await pools.getItem('p2', 'a'))?.history.map((entry) => entry.agentId)).toEqual(['agent-a']);
    expect(countStates(await pools.itemStates('p2', 'index'))).toMatchObject({ available: 2, running: 1 });
  });

  it("a running item's wake-up is on the shared timers index with scope pool and the attempt as its fence", async () => {
    // Prepare
    const { pools, jobs } = await freshStores(emulator.clientConfig());
    const pool = poolOf('p3');
    await createPool(pools, pool);
    const item = await pools.getItem('p3', 'b');
    if (!item) throw new Error('item b missing');
    // Act
    const claimed = await pools.saveItem(claimItem(item, pool, { agentId: 'agent-a', kind: 'agent' }, T0).state, item.version);
    const due = await jobs.findDueTimers(T0 + 3_600_000, 100);
    // Assess
    expect(due).toEqual([{ scope: 'pool', jobId: itemTimerId('p3', 'b'), fenceToken: 1, dueAt: claimed.timerDueAt }]);
    expect(await pools.getItem('p3', 'b')).toEqual(claimed);
  });

  it('pages items by state, reads metric counters only, and keeps escalation pointers', async () => {
    // Prepare
    const { pools } = await freshStores(emulator.clientConfig());
    await createPool(pools, poolOf('p4'));
    // Act
    const first = await pools.itemsInState('p4', 'available', 2);
    const rest = await pools.itemsInState('p4', 'available', 2, first.items.at(-1)?.itemId);
    const stats = await pools.itemStats('p4');
    await pools.putEscalationPointer({ escalationId: 'p4~a~3', poolId: 'p4', itemId: 'a', askedAt: T0 });
    await pools.putEscalationPointer({ escalationId: 'p40~a~3', poolId: 'p40', tenant: 'T', itemId: 'a', askedAt: T0 });
    // Assess
    expect([...first.items, ...rest.items].map((item) => item.itemId)).toEqual(['a', 'b', 'c']);
    expect(first.more).toBe(true);
    expect(rest.more).toBe(false);
    expect(stats.items.map((item) => Object.keys(item).sort())).toEqual([['itemId', 'stats'], ['itemId', 'stats'], ['itemId', 'stats']]);
    const p4 = { escalationId: 'p4~a~3', poolId: 'p4', itemId: 'a', askedAt: T0 };
    expect(await pools.listEscalationPointers({ poolId: 'p4' }, 10)).toEqual({ pointers: [p4], more: false });
    expect(await pools.listEscalationPointers({ poolId: 'other' }, 10)).toEqual({ pointers: [], more: false });
    expect(await pools.listEscalationPointers({ tenant: 'default' }, 10)).toEqual({ pointers: [p4], more: false });
    expect((await pools.listEscalationPointers({ tenant: 'T' }, 10)).pointers.map((pointer) => pointer.escalationId)).toEqual(['p40~a~3']);
    // A page skips another tenant's pointers and reads on, and says where it stopped.
    expect(await pools.listEscalationPointers({ tenant: 'T' }, 1)).toMatchObject({ pointers: [{ escalationId: 'p40~a~3' }] });
    expect((await pools.listEscalationPointers({ tenant: 'default' }, 1)).pointers).toEqual([p4]);
  });

  it('claim receipts: reserved once, retaken only as found, moved and released (to read as abandoned) only by their holder; item queries never see them', async () => {
    // Prepare
    const { pools } = await freshStores(emulator.clientConfig());
    await createPool(pools, poolOf('p5'));
    const reserved = { poolId: 'p5', agentId: 'agent-a', claimId: 'c-1', reservedAt: T0, itemId: 'a' };
    // Act
    const first = await pools.reserveClaim(reserved);
    const twice = await pools.reserveClaim({ ...reserved, reservedAt: T0 + 1 });
    const staleRetake = await pools.reserveClaim({ ...reserved, reservedAt: T0 + 2 }, { ...reserved, reservedAt: T0 - 1 });
    const retaken = { ...reserved, reservedAt: T0 + 40_000 };
    const retake = await pools.reserveClaim(retaken, reserved);
    const lateMove = await pools.moveClaim(reserved, 'c');
    const moved = await pools.moveClaim(retaken, 'b');
    await pools.releaseClaim(reserved);
    const stored = await pools.getClaimReceipt('p5', 'agent-a', 'c-1');
    const released = { ...reserved, claimId: 'c-2' };
    await pools.reserveClaim(released);
    await pools.releaseClaim(released);
    const afterRelease = await pools.getClaimReceipt('p5', 'agent-a', 'c-2');
    const retakenAfterRelease = afterRelease && (await pools.reserveClaim({ ...released, reservedAt: T0 + 1 }, afterRelease));
    // Assess
    expect([first, twice, staleRetake, retake, lateMove, moved]).toEqual([true, false, false, true, false, true]);
    expect(stored).toEqual({ ...retaken, itemId: 'b' });
    expect(afterRelease).toEqual({ ...released, reservedAt: 0 });
    expect(retakenAfterRelease).toBe(true);
    expect((await pools.itemsInState('p5', 'available', 10)).items.map((item) => item.itemId)).toEqual(['a', 'b', 'c']);
    expect((countStates(await pools.itemStates('p5', 'index'))).available).toBe(3);
  });
});
