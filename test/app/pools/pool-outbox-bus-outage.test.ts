import { describe, expect, it } from 'vitest';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { claim, newPool, send } from './pool-test-support.js';
import { useTestManager } from '../support/test-manager.js';

const storedPool = async (m: ReturnType<typeof useTestManager>) => (await m.deps.pools.getPool('p')) as { status: string; outbox?: unknown[]; timerDueAt?: number } | undefined;

// Noticed in the last review: a pool's outbox had no wake-up, so an event its decision could not
// publish (EventBridge down) waited for the next decision on the pool or for someone to read it.
describe('a pool whose event could not be published (dynalite, EventBridge down)', () => {
  const m = useTestManager();

  it('PoolFinished is published by the sweep once the bus is back, once, with nobody reading the pool', async () => {
    // Prepare: one item; the bus goes down; the agent completes the item, which completes the pool
    await newPool(m.deps, { agent_timeout_secs: 600 });
    const claimed = await claim(m.deps, 'agent-a');
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    m.clock.set(at(10));
    await send(m.deps, claimed, { type: 'complete', outcome: 'succeeded' });
    const completed = await storedPool(m);
    expect(completed).toMatchObject({ status: 'COMPLETED', outbox: [expect.objectContaining({ detailType: 'PoolFinished' })] });
    expect(completed?.timerDueAt).toBeGreaterThan(at(10));
    // A sweep while the bus is still down publishes nothing and moves the retry later
    m.clock.set((completed?.timerDueAt ?? 0) + SWEEP_GRACE_MS);
    await sweepJobTimers(m.deps);
    const retried = await storedPool(m);
    expect(retried?.outbox).toHaveLength(1);
    expect(retried?.timerDueAt).toBeGreaterThan(completed?.timerDueAt ?? Infinity);
    // Act: the bus comes back; only the sweep runs
    m.bus.failNextPublishes(0);
    m.clock.set((retried?.timerDueAt ?? 0) + SWEEP_GRACE_MS);
    await sweepJobTimers(m.deps);
    await sweepJobTimers(m.deps);
    // Assess: published once; the pool keeps neither the event nor its wake-up
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
    const published = await storedPool(m);
    expect(published?.outbox ?? []).toEqual([]);
    expect(published?.timerDueAt).toBeUndefined();
  });

  it('a pool whose events were published at once keeps no wake-up', async () => {
    await newPool(m.deps, { agent_timeout_secs: 600 });
    const claimed = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await send(m.deps, claimed, { type: 'complete', outcome: 'succeeded' });
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
    expect(await storedPool(m)).toMatchObject({ status: 'COMPLETED' });
    expect((await storedPool(m))?.timerDueAt).toBeUndefined();
    m.clock.set(at(600));
    expect((await sweepJobTimers(m.deps)).fired).toBe(0);
  });
});
