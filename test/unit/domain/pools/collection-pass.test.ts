import { describe, expect, it } from 'vitest';
import { afterCollectChunk, answersAgent, newCollection, planCollectionChunk } from '../../../../shared/domain/pools/checkpoint-collection.js';
import { parseTimerMessage, timerMessageBody } from '../../../../shared/adapters/aws/timer-message.js';
import { askForCheckpoint } from '../../../../shared/domain/pools/item-answers.js';
import { collectionTimerId, parseCollectionTimerId, parseItemTimerId, type PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import { at, call, claimed, freshItem, poolWith, wake } from './pool-fixtures.js';

const WINDOW_MS = 30_000;
const pool = poolWith({ agent_timeout_secs: 600, checkpoint_interval_secs: 300, checkpoint_timeout_secs: 30 });
const running = (itemId: string, agentId = `agent-${itemId}`): PoolItem => claimed(pool, freshItem(itemId), 0, agentId);

describe("a checkpoint collection's pass (pure)", () => {
  it('begins with its pass from the first running item and its wake-up stored at the start, unarmed, nobody asked yet', () => {
    // Act
    const collection = newCollection('p', 'c-1', WINDOW_MS, at(10));
    // Assess
    expect(collection).toEqual({
      poolId: 'p',
      collectionId: 'c-1',
      startedAt: at(10),
      until: at(40),
      windowMs: WINDOW_MS,
      agentCount: 0,
      chunkStarts: [],
      pass: {},
      timerDueAt: at(10),
      version: 0,
    });
  });

  it("a chunk asks its running items' agents (not one being terminated), after those already asked, for the window from now", () => {
    // Prepare: two chunks already stored, five agents asked; one item of this chunk is being terminated
    const collection = { ...newCollection('p', 'c-1', WINDOW_MS, at(10)), agentCount: 5, chunkStarts: [0, 3], pass: { afterItemId: 'i-04' } };
    const terminating = wake({ ...running('i-06'), run: { ...(running('i-06').run as NonNullable<PoolItem['run']>), agentDeadlineAt: at(1) } }, pool, 2).state;
    // Act
    const chunk = planCollectionChunk(collection, [running('i-05'), terminating, running('i-07')], { from: 'i-04', reached: 'i-07' }, at(12));
    // Assess
    expect(terminating.run?.terminating).toBeDefined();
    expect(chunk).toEqual({
      poolId: 'p',
      collectionId: 'c-1',
      index: 2,
      from: 'i-04',
      reached: 'i-07',
      start: 5,
      askedAt: at(12),
      until: at(42),
      asked: [
        { agentId: 'agent-i-05', itemId: 'i-05', attempt: 1 },
        { agentId: 'agent-i-07', itemId: 'i-07', attempt: 1 },
      ],
    });
  });

  it('a stored chunk counts its agents, moves the pass past it and arms the next chunk now as the collection\'s wake-up', () => {
    // Prepare
    const collection = { ...newCollection('p', 'c-1', WINDOW_MS, at(10)), version: 3 };
    const chunk = planCollectionChunk(collection, [running('i-01'), running('i-02')], { reached: 'i-02' }, at(11));
    // Act
    const { state, effects } = afterCollectChunk(collection, chunk, at(12));
    // Assess
    expect(state).toMatchObject({ agentCount: 2, chunkStarts: [0], pass: { afterItemId: 'i-02' }, timerDueAt: at(12), until: at(41) });
    expect(effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'pool', jobId: collectionTimerId('p', 'c-1'), fenceToken: 0, dueAt: at(12) } }]);
  });

  it('the chunk that finds no running item after it ends the pass and its wake-up; its window\'s end is the collection\'s', () => {
    // Prepare
    const collection = { ...newCollection('p', 'c-1', WINDOW_MS, at(10)), agentCount: 2, chunkStarts: [0], pass: { afterItemId: 'i-02' }, until: at(41) };
    const chunk = planCollectionChunk(collection, [running('i-03')], { from: 'i-02' }, at(20));
    // Act
    const { state, effects } = afterCollectChunk(collection, chunk, at(21));
    // Assess
    expect(state.pass).toBeUndefined();
    expect(state.timerDueAt).toBeUndefined();
    expect(state).toMatchObject({ agentCount: 3, chunkStarts: [0, 2], until: at(50) });
    expect(effects).toEqual([]);
  });

  it('a chunk whose place the pass already left (a second delivery, a run beside it) changes nothing', () => {
    // Prepare
    const collection = { ...newCollection('p', 'c-1', WINDOW_MS, at(10)), agentCount: 2, chunkStarts: [0], pass: { afterItemId: 'i-02' } };
    const first = planCollectionChunk({ ...collection, agentCount: 0, chunkStarts: [], pass: {} }, [running('i-01'), running('i-02')], { reached: 'i-02' }, at(11));
    // Act
    const repeated = afterCollectChunk(collection, first, at(12));
    const afterTheEnd = afterCollectChunk({ ...collection, pass: undefined }, first, at(12));
    // Assess
    expect(repeated.state).toBe(collection);
    expect(afterTheEnd.state.pass).toBeUndefined();
    expect([...repeated.effects, ...afterTheEnd.effects]).toEqual([]);
  });

  it("an agent's answer counts from the collection's start until its own chunk's window ends, that end excluded", () => {
    // Prepare
    const collection = newCollection('p', 'c-1', WINDOW_MS, at(10));
    const agent = { agentId: 'a', itemId: 'i-1', attempt: 2, until: at(70) };
    // Act
    const answers = [at(9), at(10), at(69.999), at(70)].map((answeredAt) => answersAgent(collection, agent, { attempt: 2, at: answeredAt }));
    const olderAttempt = answersAgent(collection, agent, { attempt: 1, at: at(20) });
    // Assess
    expect(answers).toEqual([false, true, true, false]);
    expect(olderAttempt).toBe(false);
  });

  it("a collection's timer id is none of an item's, an item's is none of a collection's, and the longest fits a timer message", () => {
    // Prepare
    const longestPoolId = 'p'.repeat(128);
    const collectionId = '1b9d6bcd-bbfd-4b2d-9b5d-ab8dfbbd4bed';
    // Act
    const timerId = collectionTimerId(longestPoolId, collectionId);
    const message = parseTimerMessage(timerMessageBody({ scope: 'pool', jobId: timerId, fenceToken: 0, dueAt: at(1) }));
    // Assess
    expect(parseCollectionTimerId(timerId)).toEqual({ poolId: longestPoolId, collectionId });
    expect(parseItemTimerId(timerId)).toBeUndefined();
    expect(parseCollectionTimerId('p/i-1')).toBeUndefined();
    expect(message.jobId).toBe(timerId);
  });
});

describe('a collection asks an attempt for a checkpoint once (pure)', () => {
  const window = { since: at(10), until: at(40) };

  it('asks a running attempt until the window ends; asked again for that window or an earlier one, nothing changes', () => {
    // Prepare
    const item = running('i-1');
    // Act
    const asked = askForCheckpoint(item, 1, window);
    const again = askForCheckpoint(asked.state, 1, window);
    const earlier = askForCheckpoint(asked.state, 1, { since: at(5), until: at(35) });
    // Assess
    expect(asked.state.run?.collectUntil).toBe(at(40));
    expect(again).toMatchObject({ state: asked.state, ignored: 'already_asked' });
    expect(earlier).toMatchObject({ state: asked.state, ignored: 'already_asked' });
  });

  it('a later window (a later collection) asks it until then', () => {
    // Act
    const asked = askForCheckpoint(askForCheckpoint(running('i-1'), 1, window).state, 1, { since: at(20), until: at(50) });
    // Assess
    expect(asked.state.run?.collectUntil).toBe(at(50));
  });

  it('an attempt that checkpointed since the collection began is not asked again: a chunk run again after it answered changes nothing', () => {
    // Prepare: asked, then answered (which closes its request)
    const answered = call(askForCheckpoint(running('i-1'), 1, window).state, pool, 12, { type: 'checkpoint', state: { n: 1 } }).state;
    // Act
    const rerun = askForCheckpoint(answered, 1, window);
    // Assess
    expect(answered.run?.collectUntil).toBeUndefined();
    expect(rerun).toMatchObject({ state: answered, ignored: 'already_answered' });
  });

  it('an older attempt, or one being terminated, is not asked', () => {
    // Prepare
    const item = running('i-1');
    const terminating = wake({ ...item, run: { ...(item.run as NonNullable<PoolItem['run']>), agentDeadlineAt: at(1) } }, pool, 2).state;
    // Act
    const stale = askForCheckpoint(item, 0, window);
    const stopping = askForCheckpoint(terminating, 1, window);
    // Assess
    expect(stale.ignored).toBe('not_running');
    expect(stopping.ignored).toBe('not_running');
  });
});
