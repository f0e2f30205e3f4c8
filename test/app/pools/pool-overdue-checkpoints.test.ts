import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { DYNAMO_ITEM_LIMIT, longId } from './largest-items.js';
import { claim, newPool, send } from './pool-test-support.js';

describe('pools on dynalite: checkpoint windows that came due while nobody was there', () => {
  const m = useTestManager();

  const storedSizes = async () => {
    const { Items = [] } = await m.dynamo.doc.send(new ScanCommand({ TableName: m.tableName, ConsistentRead: true }));
    return Items.map((stored) => Buffer.byteLength(JSON.stringify(stored), 'utf8'));
  };

  // Review finding: one decision applied 600 overdue windows and put 1,200 events in the item's
  // outbox; past 400 KB DynamoDB refused every later write, and the agent was never told to stop.
  it('after ten minutes away at one checkpoint a second, the next call is answered, one miss event carries the count, and only the open request is sent', async () => {
    // Prepare: a valid config (stalled only after 1,000 misses), the longest ids
    const poolId = longId('pool', 0);
    const itemId = longId('item', 0);
    await newPool(m.deps, { agent_timeout_secs: 100_000, checkpoint_interval_secs: 1, checkpoint_timeout_secs: 0.5, stall_threshold: 1_000 }, [itemId], poolId);
    const claimed = await claim(m.deps, longId('agent', 0), poolId);
    // Act
    m.clock.set(at(600));
    const reply = await send(m.deps, claimed, { type: 'heartbeat' }, poolId);
    // Assess
    expect(reply).toMatchObject({ action: 'checkpoint' });
    for (const size of await storedSizes()) expect(size).toBeLessThan(DYNAMO_ITEM_LIMIT);
    const misses = m.bus.ofType('CheckpointMissed');
    expect(misses).toHaveLength(1);
    // Requests at 1, 2, … 600 s, each open for half a second: 599 missed, the 600th still open.
    expect(misses[0]?.detail['misses']).toBe(599);
    expect(m.bus.ofType('CheckpointRequested').map((event) => event.detail['answerBy'])).toEqual([new Date(at(600.5)).toISOString()]);
    expect(m.telemetry.count('CheckpointMissed')).toBe(599);
  });

  it('the largest stall threshold (1,000 misses) reached while away is decided by the one call: the agent is told to terminate', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 100_000, checkpoint_interval_secs: 1, checkpoint_timeout_secs: 0.5, stall_threshold: 1_000 });
    const claimed = await claim(m.deps, 'agent-a');
    // Act
    m.clock.set(at(1_200));
    const reply = await send(m.deps, claimed, { type: 'heartbeat' });
    // Assess
    expect(reply).toMatchObject({ action: 'terminate' });
    expect(m.bus.ofType('AgentStalled').map((event) => event.detail['misses'])).toEqual([1_000]);
    expect(m.bus.ofType('CheckpointMissed').map((event) => event.detail['misses'])).toEqual([1_000]);
  });

  it('through an hour-long bus outage, an agent answering every request leaves only the open request waiting in the outbox', async () => {
    // Prepare: a request every 10 s; every publish fails for the hour. 360 requests: were their events
    // kept (about 190 bytes each), they would overflow the outbox's 64 KB, and the item's failed flushes
    // (three a request) pass the 1,010 at which the doubling retry delay overflows to Infinity.
    await newPool(m.deps, { agent_timeout_secs: 100_000, checkpoint_interval_secs: 10, checkpoint_timeout_secs: 1 });
    const claimed = await claim(m.deps, 'agent-a');
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    // Act: each request's wake-up, then the agent's checkpoint
    for (let second = 10; second <= 3_600; second += 10) {
      m.clock.set(at(second));
      await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: claimed.attempt, dueAt: at(second) });
      await send(m.deps, claimed, { type: 'checkpoint', state: { second } });
    }
    // Assess
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.outbox?.map((event) => event.detailType)).toEqual(['CheckpointRequested']);
    expect(item?.outbox?.[0]?.detail['answerBy']).toBe(new Date(at(3_601)).toISOString());
    for (const size of await storedSizes()) expect(size).toBeLessThan(DYNAMO_ITEM_LIMIT);
  }, 120_000);
});
