import { describe, expect, it } from 'vitest';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import type { ItemState } from '../../../shared/domain/pools/pool-item.js';
import type { PoolStore } from '../../../shared/ports/pool-store.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

/** The real store, answering at most `pageSize` items a query: a pool with more running items than a page. */
function smallPages(pools: PoolStore, pageSize: number): PoolStore {
  return Object.assign(Object.create(pools) as PoolStore, {
    itemsInState: (poolId: string, state: ItemState, limit: number, after?: string) => pools.itemsInState(poolId, state, Math.min(limit, pageSize), after),
  });
}

// A review note: a stop woke only the first 10,000 running items it read and ignored `more`, so a
// bigger pool's silent agents learned of the stop only at their next own wake-up (up to a checkpoint
// window late). Every page of running items is woken now.
describe('a stopped pool wakes its running items page after page (dynalite)', () => {
  const m = useTestManager();

  it('five running attempts read two at a time are all woken at the cancel', async () => {
    // Prepare
    const itemIds = ['i-1', 'i-2', 'i-3', 'i-4', 'i-5', 'i-6'];
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000 }, itemIds);
    const held = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((agent) => claim(m.deps, `agent-${agent}`)));
    m.clock.set(at(10));
    // Act
    await cancelPool({ ...m.deps, pools: smallPages(m.deps.pools, 2) }, 'p', 'operator');
    // Assess: every running attempt has its wake-up now; the item nobody held has none
    const woken = await Promise.all(held.map((claimed) => m.deps.pools.getItem('p', claimed.itemId)));
    expect(woken.map((item) => item?.timerDueAt)).toEqual(held.map(() => at(10)));
    const idle = itemIds.find((itemId) => !held.some((claimed) => claimed.itemId === itemId));
    expect((await m.deps.pools.getItem('p', idle ?? ''))?.timerDueAt).toBeUndefined();
  });
});
