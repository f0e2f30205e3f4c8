import { describe, expect, it } from 'vitest';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

// Every armed wake-up is an SQS message and a Lambda invocation on AWS (the cost model counts them).
// A pool item's wake-up arms only what its decision stores, once: the message it replaces cannot be
// withdrawn and still arrives, and a lost one is found by the sweep through the stored due time.
describe('a pool wake-up arms only the wake-up its decision stores', () => {
  const m = useTestManager();

  it('a checkpoint window opening arms its close once; a wake-up with nothing due arms nothing', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 100, checkpoint_timeout_secs: 20 });
    const held = await claim(m.deps, 'agent-a');
    const timerId = itemTimerId('p', held.itemId);
    const opensAt = (await m.deps.pools.getItem('p', held.itemId))?.timerDueAt ?? 0;
    const armedBefore = m.timers.armed(timerId).length;
    // Act: the window opens; then the same wake-up again (a duplicate delivery), nothing due
    m.clock.set(opensAt);
    await firePoolTimer(m.deps, { scope: 'pool', jobId: timerId, fenceToken: held.attempt, dueAt: opensAt });
    const afterOpening = m.timers.armed(timerId).slice(armedBefore);
    await firePoolTimer(m.deps, { scope: 'pool', jobId: timerId, fenceToken: held.attempt, dueAt: opensAt });
    // Assess
    expect(afterOpening).toEqual([{ scope: 'pool', jobId: timerId, fenceToken: held.attempt, dueAt: opensAt + 20_000 }]);
    expect(m.timers.armed(timerId).slice(armedBefore)).toEqual(afterOpening);
    expect((await m.deps.pools.getItem('p', held.itemId))?.timerDueAt).toBe(opensAt + 20_000);
    expect(opensAt).toBe(at(100));
  });

  // Review finding: a wake-up more than 15 minutes out comes by a schedule that fires ahead of it
  // (the SQS delay carries the rest); the item's own wake-up, arriving early with nothing due, armed
  // nothing, so it was lost every time and only the sweep ended the deadline.
  it('its own wake-up delivered early with nothing due is armed again for its time, once', async () => {
    // Prepare: the first checkpoint request is 1,000 s after the claim
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 1_000, checkpoint_timeout_secs: 20 });
    const held = await claim(m.deps, 'agent-a');
    const timerId = itemTimerId('p', held.itemId);
    const dueAt = (await m.deps.pools.getItem('p', held.itemId))?.timerDueAt ?? 0;
    const armedBefore = m.timers.armed(timerId).length;
    const before = await m.deps.pools.getItem('p', held.itemId);
    // Act: the schedule's early delivery, three minutes ahead
    m.clock.set(dueAt - 180_000);
    await firePoolTimer(m.deps, { scope: 'pool', jobId: timerId, fenceToken: held.attempt, dueAt });
    // Assess
    expect(dueAt).toBe(at(1_000));
    expect(m.timers.armed(timerId).slice(armedBefore)).toEqual([{ scope: 'pool', jobId: timerId, fenceToken: held.attempt, dueAt }]);
    expect(await m.deps.pools.getItem('p', held.itemId)).toEqual(before);
  });
});
