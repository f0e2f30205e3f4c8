import { describe, expect, it } from 'vitest';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { loadPool } from '../../../shared/app/pools/pool-state-stores.js';
import { wakeRunningItems } from '../../../shared/app/pools/wake-running-items.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

// Seed 327,011 of the long sweep: a claim crashed after its write (its agent never learned it held
// the item), the pool then failed, and the wake-up armed to terminate that attempt was lost. The
// early wake-up existed only as a message, so the sweep could not find it, and the attempt ran on
// until its own next window, 71 s past the pool's end. A stopped pool's running attempts now carry
// their early wake-up in the item (the sparse timer index), like every other wake-up.

describe("a stopped pool's running attempts are woken durably", () => {
  const m = useTestManager();
  const longLimits = { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000 };

  it('a cancel stores each running attempt\'s wake-up at once and arms it; lost, the sweep still terminates the attempt', async () => {
    // Prepare: RecordingTimers deliver nothing, so only the stored wake-up can be found again
    await newPool(m.deps, longLimits, ['i-1', 'i-2']);
    const held = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    // Act
    await cancelPool(m.deps, 'p', 'operator');
    const woken = await m.deps.pools.getItem('p', held.itemId);
    const armed = m.timers.current(itemTimerId('p', held.itemId));
    m.clock.set(at(10) + SWEEP_GRACE_MS);
    const swept = await sweepJobTimers(m.deps);
    // Assess
    expect(woken?.timerDueAt).toBe(at(10));
    expect(armed).toMatchObject({ dueAt: at(10), fenceToken: held.attempt });
    expect(swept.fired).toBe(1);
    expect((await m.deps.pools.getItem('p', held.itemId))?.run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' } });
  });

  it('a repeated wake (a retried fail_pool follow-up) leaves an attempt already terminating, and an item nobody runs, as they were', async () => {
    // Prepare
    await newPool(m.deps, longLimits, ['i-1', 'i-2']);
    const held = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    const { status } = await cancelPool(m.deps, 'p', 'first');
    m.clock.set(at(10) + SWEEP_GRACE_MS);
    await sweepJobTimers(m.deps);
    const terminating = await m.deps.pools.getItem('p', held.itemId);
    const idle = await m.deps.pools.getItem('p', 'i-2');
    const armedBefore = m.timers.calls.length;
    // Act
    await wakeRunningItems(m.deps, { ...(await loadPool(m.deps, 'p')) });
    // Assess
    expect(status).toBe('CANCELLED');
    expect(terminating?.run?.terminating).toBeDefined();
    expect(await m.deps.pools.getItem('p', held.itemId)).toEqual(terminating);
    expect(await m.deps.pools.getItem('p', 'i-2')).toEqual(idle);
    expect(m.timers.calls.length).toBe(armedBefore);
  });

  it('a cancel that crashed after the pool\'s write is finished by sending it again: 200, and the running attempts are woken', async () => {
    // Prepare: the first cancel stores CANCELLED, then dies before waking anything
    await newPool(m.deps, longLimits, ['i-1', 'i-2']);
    const held = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    const crashing = { ...m.deps, pools: Object.assign(Object.create(m.deps.pools), { itemsInState: () => Promise.reject(new Error('crashed')) }) };
    await expect(cancelPool(crashing, 'p', 'first')).rejects.toThrow('crashed');
    const notWoken = await m.deps.pools.getItem('p', held.itemId);
    // Act
    const again = await cancelPool(m.deps, 'p', 'again');
    // Assess
    expect(notWoken?.timerDueAt).toBeGreaterThan(at(10));
    expect(again).toEqual({ poolId: 'p', status: 'CANCELLED' });
    expect((await m.deps.pools.getItem('p', held.itemId))?.timerDueAt).toBe(at(10));
    expect((await loadPool(m.deps, 'p')).reason).toBe('first');
  });
});

