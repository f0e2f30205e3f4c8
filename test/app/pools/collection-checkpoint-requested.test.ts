import { describe, expect, it } from 'vitest';
import { startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { CheckpointRequested } from '../../../shared/events/pools/checkpoint-requested.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

/**
 * A review finding: `POST /pools/{poolId}/checkpoints/collect` asks every running agent for a checkpoint (seed 002's
 * compaction), but publishes no `CheckpointRequested`. The event module itself
 * (shared/events/pools/checkpoint-requested.ts) says it is published when "a checkpoint request opened
 * for an attempt (or a collection asked for one)", and the contract lists `CheckpointRequested` as the
 * push side of a checkpoint request. An agent fleet driven by events (ECS tasks, Lambdas) never hears
 * of a collection, and the collection waits out `checkpoint_timeout_secs` with everyone missing.
 *
 * Now a collection publishes one `CheckpointRequested` per asked attempt (poolId, itemId, attempt,
 * agentId, at, answerBy = the collection's end): a page of them per PutEvents, best effort (the
 * heartbeat still says `checkpoint`), so a collection costs no second write per item.
 */
describe('a checkpoint collection publishes CheckpointRequested (dynalite)', () => {
  const m = useTestManager();

  it('each running attempt asked by a collection gets a CheckpointRequested with answerBy = the window end', async () => {
    // Prepare: one running agent; no periodic checkpoint is due for an hour
    await newPool(m.deps, { agent_timeout_secs: 7_200, checkpoint_interval_secs: 3_600, checkpoint_timeout_secs: 30 });
    const claimed = await claim(m.deps, 'agent-1');
    m.clock.set(at(10));
    const before = m.bus.ofType(CheckpointRequested.detailType).length;

    // Act
    await startCollection(m.deps, 'p');

    // Assess
    const requested = m.bus.ofType(CheckpointRequested.detailType).slice(before).map((event) => CheckpointRequested.parse(event.detail));
    expect(requested).toEqual([
      expect.objectContaining({ poolId: 'p', itemId: claimed.itemId, attempt: claimed.attempt, agentId: 'agent-1', answerBy: new Date(at(40)).toISOString() }),
    ]);
  });

  it('with EventBridge down the collection still asks every agent (their heartbeats say checkpoint)', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 7_200, checkpoint_interval_secs: 3_600, checkpoint_timeout_secs: 30 });
    const claimed = await claim(m.deps, 'agent-1');
    m.clock.set(at(10));
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    // Act
    const { collectionId } = await startCollection(m.deps, 'p');
    // Assess
    expect(collectionId).toBeTruthy();
    expect((await m.deps.pools.getItem('p', claimed.itemId))?.run?.collectUntil).toBe(at(40));
    expect(m.bus.ofType(CheckpointRequested.detailType)).toEqual([]);
  });
});
