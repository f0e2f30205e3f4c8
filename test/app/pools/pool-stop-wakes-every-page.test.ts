import { describe, expect, it } from 'vitest';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { poolTimerId, type ItemState } from '../../../shared/domain/pools/pool-item.js';
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
// window late). Every page of running items is woken now, a page per chunk of the stop's wake pass.
describe('a stopped pool wakes its running items page after page (dynalite)', () => {
  const m = useTestManager();

  it('five running attempts read two at a time are all told to terminate by the cancel and the wake-ups it arms', async () => {
    // Prepare
    const itemIds = ['i-1', 'i-2', 'i-3', 'i-4', 'i-5', 'i-6'];
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000 }, itemIds);
    const held = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((agent) => claim(m.deps, `agent-${agent}`)));
    m.clock.set(at(10));
    const deps = { ...m.deps, pools: smallPages(m.deps.pools, 2) };
    // Act: the cancel, then each wake-up its pass arms, as the timer queue delivers them
    await cancelPool(deps, 'p', 'operator');
    const delivered = new Set<unknown>();
    for (let next = m.timers.current(poolTimerId('p')); next && !delivered.has(next); next = m.timers.current(poolTimerId('p'))) {
      delivered.add(next);
      await firePoolTimer(deps, next);
    }
    // Assess: every running attempt is terminating since the cancel; the item nobody held has no wake-up
    const woken = await Promise.all(held.map((claimed) => m.deps.pools.getItem('p', claimed.itemId)));
    expect(woken.map((item) => item?.run?.terminating?.since)).toEqual(held.map(() => at(10)));
    expect(delivered.size).toBe(2);
    const idle = itemIds.find((itemId) => !held.some((claimed) => claimed.itemId === itemId));
    expect((await m.deps.pools.getItem('p', idle ?? ''))?.timerDueAt).toBeUndefined();
  });
});
