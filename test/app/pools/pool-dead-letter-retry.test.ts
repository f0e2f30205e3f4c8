import { describe, expect, it } from 'vitest';
import { retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import type { VigilError } from '../../../shared/domain/errors.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, withInterleaving } from './pool-test-support.js';

describe('pools on dynalite: a dead letter retried', () => {
  const m = useTestManager();

  /** The pool's only item dead-lettered after one timeout: the pool is COMPLETED. */
  async function deadLettered() {
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } });
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: agent.attempt, dueAt: at(10) });
    expect((await getPool(m.deps, 'p')).status).toBe('COMPLETED');
  }

  // Review finding: the pool was reopened before the item was written, and a GET /pools in between
  // (which completes a pool whose items are all settled) completed it again over the item.
  it('racing a status read, it never leaves a COMPLETED pool holding an available item no agent can claim', async () => {
    // Prepare
    await deadLettered();
    const { deps, store } = withInterleaving(m);
    store.beforeNextSave(() => getPool(m.deps, 'p'));
    // Act
    const retried = await retryDeadLetter(deps, 'p', 'i-1', undefined);
    // Assess
    expect(retried.state).toBe('available');
    const pool = await getPool(m.deps, 'p');
    expect(pool.status).toBe('RUNNING');
    expect(pool.counts?.available).toBe(1);
    expect(await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' })).toMatchObject({ itemId: 'i-1', attempt: 2 });
  });

  it('crashing after the item is written, its wake-up reopens the pool', async () => {
    // Prepare: the reopening (the item's follow-up) dies with the invocation
    await deadLettered();
    const crashing = { ...m.deps, pools: Object.assign(Object.create(Object.getPrototypeOf(m.deps.pools) as object), m.deps.pools, { savePool: () => Promise.reject(new Error('crashed')) }) };
    await refusal(retryDeadLetter(crashing, 'p', 'i-1', undefined));
    const item = await m.deps.pools.getItem('p', 'i-1');
    // Act
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: item?.attempt ?? 0, dueAt: item?.timerDueAt ?? 0 });
    // Assess
    expect(item?.pending).toEqual([{ type: 'reopen_pool' }]);
    expect((await getPool(m.deps, 'p')).status).toBe('RUNNING');
    expect((await m.deps.pools.getItem('p', 'i-1'))?.pending).toBeUndefined();
  });

  it('in a cancelled pool it is refused and changes nothing', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } }, ['i-1', 'i-2']);
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', agent.itemId), fenceToken: agent.attempt, dueAt: at(10) });
    await cancelPool(m.deps, 'p', undefined);
    const before = await m.deps.pools.getItem('p', agent.itemId);
    // Act
    const refused = await refusal(retryDeadLetter(m.deps, 'p', agent.itemId, undefined));
    // Assess
    expect((refused as VigilError).code).toBe('pool_finished');
    expect(await m.deps.pools.getItem('p', agent.itemId)).toEqual(before);
  });
});
