import { describe, expect, it } from 'vitest';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { loadPool } from '../../../shared/app/pools/pool-state-stores.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { poolTimerId } from '../../../shared/domain/pools/pool-item.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

// Seed 327,011 of the long sweep: a claim crashed after its write (its agent never learned it held
// the item), the pool then failed, and the wake-up armed to terminate that attempt was lost. The
// early wake-up existed only as a message, so the sweep could not find it, and the attempt ran on
// until its own next window, 71 s past the pool's end. A stop now writes its wake pass on the pool
// with the stop itself, with a wake-up the sweep finds, like every other wake-up.

/** The real store whose reads of running items fail: the stopping call is cut off right after the pool's write. */
const cutOffAfterThePoolsWrite = (deps: ManagerDeps): ManagerDeps => ({
  ...deps,
  pools: Object.assign(Object.create(deps.pools), { itemsInState: () => Promise.reject(new Error('crashed')) }),
});

describe("a stopped pool's running attempts are woken durably", () => {
  const m = useTestManager();
  const longLimits = { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000 };

  it('a cancel cut off before waking anything leaves its wake pass on the pool, and the sweep runs it: the attempt is told to terminate', async () => {
    // Prepare: RecordingTimers deliver nothing, so only the stored wake-up can be found again
    await newPool(m.deps, longLimits, ['i-1', 'i-2']);
    const held = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await expect(cancelPool(cutOffAfterThePoolsWrite(m.deps), 'p', 'operator')).rejects.toThrow('crashed');
    const stopped = await m.deps.pools.getPool('p');
    // Act
    m.clock.set(at(10) + SWEEP_GRACE_MS);
    const swept = await sweepJobTimers(m.deps);
    // Assess: stored with the cancel, not armed (the cancel's own call wakes the first chunk)
    expect(stopped).toMatchObject({ status: 'CANCELLED', wakePass: {}, timerDueAt: at(10) });
    expect(m.timers.current(poolTimerId('p'))).toBeUndefined();
    expect(swept.fired).toBe(1);
    expect((await m.deps.pools.getItem('p', held.itemId))?.run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' }, since: at(10) });
    expect((await m.deps.pools.getPool('p'))?.wakePass).toBeUndefined();
  });

  it('a cancel sent again after its pass is over starts another, which leaves an attempt already terminating, and an item nobody runs, as they were', async () => {
    // Prepare
    await newPool(m.deps, longLimits, ['i-1', 'i-2']);
    const held = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    const { status } = await cancelPool(m.deps, 'p', 'first');
    const terminating = await m.deps.pools.getItem('p', held.itemId);
    const idle = await m.deps.pools.getItem('p', held.itemId === 'i-1' ? 'i-2' : 'i-1');
    const armedBefore = m.timers.calls.length;
    // Act
    m.clock.set(at(20));
    const again = await cancelPool(m.deps, 'p', 'again');
    // Assess
    expect(status).toBe('CANCELLED');
    expect(again).toEqual({ poolId: 'p', status: 'CANCELLED' });
    expect(terminating?.run?.terminating).toMatchObject({ since: at(10) });
    expect(await m.deps.pools.getItem('p', held.itemId)).toEqual(terminating);
    expect(await m.deps.pools.getItem('p', idle?.itemId ?? '')).toEqual(idle);
    expect(m.timers.calls.length).toBe(armedBefore);
    expect(await loadPool(m.deps, 'p')).toMatchObject({ reason: 'first', finishedAt: at(10) });
    expect((await loadPool(m.deps, 'p')).wakePass).toBeUndefined();
  });

  it("a cancel that crashed after the pool's write is finished by sending it again: 200, and the running attempts are told to terminate", async () => {
    // Prepare: the first cancel stores CANCELLED, then dies before waking anything
    await newPool(m.deps, longLimits, ['i-1', 'i-2']);
    const held = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await expect(cancelPool(cutOffAfterThePoolsWrite(m.deps), 'p', 'first')).rejects.toThrow('crashed');
    const notWoken = await m.deps.pools.getItem('p', held.itemId);
    // Act
    m.clock.set(at(11));
    const again = await cancelPool(m.deps, 'p', 'again');
    // Assess: the grace period runs from the first cancel, the one stored
    expect(notWoken?.run?.terminating).toBeUndefined();
    expect(again).toEqual({ poolId: 'p', status: 'CANCELLED' });
    expect((await m.deps.pools.getItem('p', held.itemId))?.run?.terminating).toMatchObject({ since: at(10), terminateBy: at(40) });
    expect((await loadPool(m.deps, 'p')).reason).toBe('first');
  });
});
