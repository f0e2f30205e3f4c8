import { describe, expect, it } from 'vitest';
import { SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { claim, cutOffAt, newPool, send } from '../pools/pool-test-support.js';
import { useTestManager } from '../support/test-manager.js';

/**
 * An outbox is only ever published by a wake-up: the item's own, or the sweep's backstop over its
 * index entry. A decision that takes an item's wake-up away (an idle item needs none for itself)
 * while events of an earlier decision still wait in its outbox (the bus was down) wrote the outbox
 * with no index entry; the retry was written only by the publish that came after, so a Lambda cut off
 * between the two left events nobody would publish, lost wake-up messages or not.
 */
describe('an outbox left with no wake-up by a decision that adds no events (dynalite, EventBridge down)', () => {
  const m = useTestManager();

  it('a late result written to a finished item while its events wait, then the Lambda cut off: the sweep still publishes them', async () => {
    // Prepare: the item completes while the bus is down; its events wait in its outbox, with a retry wake-up
    await newPool(m.deps, { agent_timeout_secs: 600 });
    const agent = await claim(m.deps, 'agent-a');
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    m.clock.set(at(10));
    await send(m.deps, agent, { type: 'complete', outcome: 'succeeded', result: { v: 1 } });
    const completed = await m.deps.pools.getItem('p', 'i-1');
    expect(completed?.outbox?.length).toBeGreaterThan(0);
    expect(completed?.timerDueAt).toBeDefined();

    // Act: another result arrives late (refused, kept in the history: no event); the Lambda is cut off
    // after that write, before the publish's retry is written
    m.clock.set(at(12));
    const cutOff = { ...m.deps, pools: cutOffAt(m.deps.pools, 'saveItem', 1) };
    await send(cutOff, agent, { type: 'complete', outcome: 'failed' }).catch(() => undefined);
    const left = await m.deps.pools.getItem('p', 'i-1');
    expect(left?.history[0]?.lateResults).toHaveLength(1);
    expect(left?.outbox?.length).toBe(completed?.outbox?.length);
    // The bus comes back; every message armed so far is lost: only the sweep runs
    m.bus.failNextPublishes(0);
    for (let sweep = 1; sweep <= 20; sweep++) {
      m.clock.set(at(12) + sweep * SWEEP_INTERVAL_MS);
      await sweepJobTimers(m.deps);
    }

    // Assess: the waiting events went out, and the item keeps neither them nor a wake-up
    const published = await m.deps.pools.getItem('p', 'i-1');
    expect(published?.outbox ?? []).toEqual([]);
    expect(published?.timerDueAt).toBeUndefined();
    expect(m.bus.ofType('AgentCompleted')).toHaveLength(1);
  });
});
