import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { AVAILABLE_INDEX } from '../../../shared/adapters/aws/jobs-table.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { newPoolItem } from '../../../shared/domain/pools/pool-item.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send } from './pool-test-support.js';

const poolQueries = (calls: ReturnType<typeof useTestManager>['calls']) => calls.filter((call) => call.command === 'QueryCommand');

describe('claims read the sparse `available` index, not the pool (on dynalite)', () => {
  const m = useTestManager();

  it('in a pool of 600 items near its end, a claim is one or two small index queries, whatever the pool’s size', async () => {
    // Prepare: 590 items done, 10 available
    await newPool(m.deps, {}, ['seed']);
    const done = Array.from({ length: 590 }, (_, i) => ({ ...newPoolItem('p', `done-${String(i).padStart(4, '0')}`, null), state: 'succeeded' as const, attempt: 1 }));
    const open = Array.from({ length: 9 }, (_, i) => newPoolItem('p', `open-${i}`, null));
    await m.deps.pools.createItems([...done, ...open]);
    m.calls.length = 0;
    // Act
    const claimed = await claimPoolItem(m.deps, 'p', { agentId: 'a', kind: 'agent' });
    // Assess
    expect(claimed?.itemId).toMatch(/^(open-\d|seed)$/);
    // (two when the random starting point fell past the last entry)
    const queries = poolQueries(m.calls);
    expect(queries.length).toBeGreaterThanOrEqual(1);
    expect(queries.length).toBeLessThanOrEqual(2);
    for (const query of queries) expect(query.input).toMatchObject({ IndexName: AVAILABLE_INDEX, Limit: 25 });
  });

  it('an item leaves the index when claimed and comes back when it is available again; two agents never hold it', async () => {
    // Prepare
    await newPool(m.deps, {}, ['only']);
    const first = await claim(m.deps, 'agent-a');
    // Act
    const whileRunning = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    await send(m.deps, first, { type: 'terminated', cleanup: 'completed' }); // stopped unasked: available again
    const again = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    // Assess
    expect(whileRunning).toBeUndefined();
    expect(again).toMatchObject({ itemId: 'only', attempt: 2 });
  });

  it('on a table created before the index existed (a local data dir), claims read the pool instead and still work', async () => {
    // Prepare
    const tableName = await m.dynamo.table(false);
    const deps = { ...m.deps, pools: new DynamoPoolStore(m.doc, tableName) };
    await newPool(deps, {}, ['x', 'y']);
    // Act
    const claims = [await claimPoolItem(deps, 'p', { agentId: 'a', kind: 'agent' }), await claimPoolItem(deps, 'p', { agentId: 'b', kind: 'agent' })];
    const none = await claimPoolItem(deps, 'p', { agentId: 'c', kind: 'agent' });
    // Assess
    expect(claims.map((c) => c?.itemId).sort()).toEqual(['x', 'y']);
    expect(none).toBeUndefined();
  });

  it('a completion checks whether the pool finished without reading the whole pool while items are left', async () => {
    // Prepare: 300 items; two agents hold two of them
    await newPool(m.deps, {}, Array.from({ length: 300 }, (_, i) => `i-${i}`));
    const a = await claim(m.deps, 'agent-a');
    m.calls.length = 0;
    // Act
    await send(m.deps, a, { type: 'complete', outcome: 'succeeded' });
    // Assess: only index reads, no query over the pool's items
    const queries = poolQueries(m.calls);
    expect(queries.length).toBeGreaterThan(0);
    expect(queries.every((q) => q.input['IndexName'] === AVAILABLE_INDEX)).toBe(true);
    expect((await m.deps.pools.getPool('p'))?.status).toBe('RUNNING');
  });

  it('the last item’s completion still finds the pool finished', async () => {
    // Prepare
    await newPool(m.deps, {}, ['x', 'y']);
    const x = await claim(m.deps, 'agent-a');
    const y = await claim(m.deps, 'agent-b');
    // Act
    await send(m.deps, x, { type: 'complete', outcome: 'succeeded' });
    const between = (await m.deps.pools.getPool('p'))?.status;
    await send(m.deps, y, { type: 'complete', outcome: 'failed' });
    // Assess
    expect(between).toBe('RUNNING');
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
  });
});
