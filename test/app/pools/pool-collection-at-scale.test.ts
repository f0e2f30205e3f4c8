import { describe, expect, it } from 'vitest';
import { SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { collectionStatus, startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { collectionTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { CheckpointRequested } from '../../../shared/events/pools/checkpoint-requested.js';
import { at } from '../../support/fixtures.js';
import type { TestManager } from '../support/test-manager.js';
import { useTestManager } from '../support/test-manager.js';
import { allPages } from './all-pages.js';
import { claim, cutOffAt, deliverPassWakeUps, newPool, send, writtenItems, type Claimed } from './pool-test-support.js';

// A review of AWS limits: `POST …/checkpoints/collect` asked every running item of the pool inside the
// one call and stored the collection only at its end. On DynamoDB thousands of running items sharing
// one partition outlast API Gateway's 29 s, and a call cut off lost the collection: its agents were
// asked, and nothing said so. The collection is now stored first, with a pass over the running items
// that asks a chunk of them per invocation, each chunk stored before its agents are asked.

const RUNNING = 14;
/** Small chunks, so the single call's work takes five of them. */
const CHUNK = 3;
const CHUNKS = Math.ceil(RUNNING / CHUNK);
const WINDOW_SECS = 300;
const LIMITS = { agent_timeout_secs: 7_200, checkpoint_interval_secs: 3_000, checkpoint_timeout_secs: WINDOW_SECS };
const ITEM_IDS = Array.from({ length: RUNNING + 1 }, (_, i) => `i-${String(i).padStart(2, '0')}`);

/** A pool of `RUNNING` running attempts (and one item nobody claimed). */
async function poolOfRunningAttempts(m: TestManager, limits: object = LIMITS): Promise<Claimed[]> {
  await newPool(m.deps, limits, ITEM_IDS);
  const held: Claimed[] = [];
  for (let i = 0; i < RUNNING; i++) held.push(await claim(m.deps, `agent-${i}`));
  return held;
}

const chunked = (m: TestManager): ManagerDeps => ({ ...m.deps, passChunk: CHUNK });
/** The pass as one chunk: the whole walk in the starting call, as the collection was before. */
const inOneCall = (m: TestManager): ManagerDeps => ({ ...m.deps, passChunk: RUNNING + 1 });

/** Every third agent answers, each with its own state. */
async function everyThirdAnswers(m: TestManager, held: readonly Claimed[]): Promise<void> {
  for (const [i, claimed] of held.entries()) if (i % 3 === 0) await send(m.deps, claimed, { type: 'checkpoint', state: { from: claimed.agentId } });
}

/** The status as a client reads it, every page, without the collection's id. */
async function statusOf(m: TestManager, collectionId: string) {
  const pages = await allPages((cursor) => collectionStatus(m.deps, 'p', collectionId, undefined, cursor));
  return pages.map(({ collectionId: _id, ...page }) => page);
}

/**
 * The single call's answers, as the reference: a collection asked in one chunk at `startAt`, answered
 * by every third agent 10 s later, read before its window closes and after.
 */
async function inOneCallAnswers(m: TestManager, held: readonly Claimed[], startAt: number) {
  m.clock.set(startAt);
  const { collectionId } = await startCollection(inOneCall(m), 'p');
  m.clock.set(startAt + 10_000);
  await everyThirdAnswers(m, held);
  const whileOpen = await statusOf(m, collectionId);
  m.clock.set(startAt + WINDOW_SECS * 1000);
  return { collectionId, whileOpen, done: await statusOf(m, collectionId) };
}

const inItemOrder = (held: readonly Claimed[]): Claimed[] => [...held].sort((a, b) => a.itemId.localeCompare(b.itemId));

async function itemsOf(m: TestManager, held: readonly Claimed[]): Promise<PoolItem[]> {
  return Promise.all(held.map(async (claimed) => (await m.deps.pools.getItem('p', claimed.itemId)) as PoolItem));
}

/** How many times each held item was written since `before` was read (conditional writes that lost count nothing). */
const writesSince = async (m: TestManager, held: readonly Claimed[], before: readonly PoolItem[]) =>
  (await itemsOf(m, held)).map((item, i) => item.version - (before[i]?.version ?? 0));

const requestedAgents = (m: TestManager, from: number) =>
  m.bus.ofType(CheckpointRequested.detailType).slice(from).map((event) => CheckpointRequested.parse(event.detail).agentId).sort();

describe('a checkpoint collection over more running attempts than one invocation asks (dynalite)', () => {
  const m = useTestManager();

  it('asks a chunk per invocation, each writing at most a chunk of items, and answers what the single call answered', async () => {
    // Prepare: the reference, then a second collection of the same agents, in chunks
    const held = await poolOfRunningAttempts(m);
    const reference = await inOneCallAnswers(m, held, at(10));
    const deps = chunked(m);
    m.clock.set(at(400));
    // Act: the starting call asks the first chunk; each further chunk is one delivery of the collection's wake-up
    const writesBefore = writtenItems(m.calls).length;
    const { collectionId } = await startCollection(deps, 'p');
    const writesByTheCall = writtenItems(m.calls).length - writesBefore;
    const afterTheCall = await statusOf(m, collectionId);
    const timerId = collectionTimerId('p', collectionId);
    const writesPerDelivery: number[] = [];
    for (let next = m.timers.current(timerId), seen = new Set<unknown>(); next && !seen.has(next); next = m.timers.current(timerId)) {
      seen.add(next);
      const before = writtenItems(m.calls).length;
      await firePoolTimer(deps, next);
      writesPerDelivery.push(writtenItems(m.calls).length - before);
    }
    m.clock.set(at(410));
    await everyThirdAnswers(m, held);
    const whileOpen = await statusOf(m, collectionId);
    m.clock.set(at(400 + WINDOW_SECS));
    const done = await statusOf(m, collectionId);
    // Assess: five invocations for fourteen agents in chunks of three, each asking its own
    expect(reference.done).toEqual([expect.objectContaining({ status: 'done' })]);
    expect(reference.done[0]?.collected).toHaveLength(Math.ceil(RUNNING / 3));
    expect(writesByTheCall).toBe(CHUNK);
    expect(afterTheCall).toEqual([{ status: 'collecting', collected: [], missing: inItemOrder(held).slice(0, CHUNK).map((c) => c.agentId) }]);
    expect(writesPerDelivery).toEqual([CHUNK, CHUNK, CHUNK, RUNNING - 4 * CHUNK]);
    expect(whileOpen).toEqual(reference.whileOpen);
    expect(done).toEqual(reference.done);
    const collection = await m.deps.pools.getCollection('p', collectionId);
    expect(collection).toMatchObject({ agentCount: RUNNING, chunkStarts: [0, 3, 6, 9, 12] });
    expect(collection?.pass).toBeUndefined();
    expect(collection?.timerDueAt).toBeUndefined();
  });

  it('cut off mid-chunk in the starting call and between a chunk and its move: the sweep and the redelivery run each again from the stored place, every agent is asked once, and the answers are the single call\'s', async () => {
    // Prepare
    const held = await poolOfRunningAttempts(m);
    const reference = await inOneCallAnswers(m, held, at(10));
    const deps = chunked(m);
    const requestsBefore = m.bus.ofType(CheckpointRequested.detailType).length;
    const collectionStart = at(400);
    m.clock.set(collectionStart);
    const before = await itemsOf(m, held);
    // Act 1: the starting call's first chunk is cut off after asking one agent (its later writes fail); the call answers the collection's id all the same
    const { collectionId } = await startCollection({ ...deps, pools: cutOffAt(m.deps.pools, 'saveItem', 1) }, 'p');
    const timerId = collectionTimerId('p', collectionId);
    const beforeTheSweep = await statusOf(m, collectionId);
    // Act 2: nothing was armed; the latest the next minute's sweep comes is just past the grace at which it presumes the wake-up lost
    m.clock.set(collectionStart + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS);
    const swept = await sweepJobTimers(deps);
    // Act 3: the next chunk asks its agents and dies before moving the pass; its message comes again
    const secondChunk = m.timers.expectArmed(timerId);
    const cutOff = await firePoolTimer({ ...deps, pools: cutOffAt(m.deps.pools, 'saveCollection') }, secondChunk).catch((error: unknown) => error);
    await deliverPassWakeUps(m, deps, timerId);
    const asked = await writesSince(m, held, before);
    const untils = (await itemsOf(m, held)).map((item) => item.run?.collectUntil);
    // Act 4: every third agent answers, within every window
    m.clock.set(collectionStart + 100_000);
    await everyThirdAnswers(m, held);
    m.clock.set(collectionStart + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS + WINDOW_SECS * 1000);
    const done = await statusOf(m, collectionId);
    // Assess: no collection lost, no agent asked twice nor left out
    expect(beforeTheSweep).toEqual([{ status: 'collecting', collected: [], missing: [] }]);
    expect(swept.fired).toBe(1);
    expect(cutOff).toMatchObject({ message: 'the Lambda was cut off at saveCollection' });
    expect(asked).toEqual(held.map(() => 1));
    expect(requestedAgents(m, requestsBefore)).toEqual(held.map((c) => c.agentId).sort());
    // the first chunk keeps the window the cut-off call stored it with; the sweep asked the others
    const firstChunk = new Set(inItemOrder(held).slice(0, CHUNK));
    const sweptAt = collectionStart + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS;
    expect(untils).toEqual(held.map((c) => (firstChunk.has(c) ? collectionStart : sweptAt) + WINDOW_SECS * 1000));
    expect(done).toEqual(reference.done);
  });

  it("a chunk's message delivered again, one after the other or two at once, changes nothing the first did and publishes no request again", async () => {
    // Prepare
    const held = await poolOfRunningAttempts(m);
    const deps = chunked(m);
    m.clock.set(at(10));
    const before = await itemsOf(m, held);
    const { collectionId } = await startCollection(deps, 'p');
    const timerId = collectionTimerId('p', collectionId);
    const secondChunk = m.timers.expectArmed(timerId);
    // Act: the second chunk's message is delivered twice at once, then the pass runs on and every message comes again
    await Promise.all([firePoolTimer(deps, secondChunk), firePoolTimer(deps, secondChunk)]);
    const delivered = await deliverPassWakeUps(m, deps, timerId, [secondChunk]);
    const settled = { collection: await m.deps.pools.getCollection('p', collectionId), items: await itemsOf(m, held), status: await statusOf(m, collectionId) };
    const asked = await writesSince(m, held, before);
    const callsBefore = m.calls.length;
    const requestsBefore = m.bus.ofType(CheckpointRequested.detailType).length;
    for (const timer of delivered) await firePoolTimer(deps, timer);
    // Assess
    expect(delivered).toHaveLength(CHUNKS - 1);
    expect(asked).toEqual(held.map(() => 1));
    expect(requestsBefore).toBe(RUNNING);
    expect(requestedAgents(m, 0)).toEqual(held.map((c) => c.agentId).sort());
    expect(settled.items.map((item) => item.run?.collectUntil)).toEqual(held.map(() => at(10 + WINDOW_SECS)));
    expect(settled.status).toEqual([{ status: 'collecting', collected: [], missing: expect.any(Array) }]);
    expect(settled.status[0]?.missing.slice().sort()).toEqual(held.map((c) => c.agentId).sort());
    expect(m.calls.slice(callsBefore).filter((call) => call.command === 'PutCommand')).toEqual([]);
    expect(await m.deps.pools.getCollection('p', collectionId)).toEqual(settled.collection);
    expect(await itemsOf(m, held)).toEqual(settled.items);
    expect(m.bus.ofType(CheckpointRequested.detailType)).toHaveLength(RUNNING);
  });

  it('each chunk gives its agents checkpoint_timeout_secs from when it asks them; the status is collecting until the pass is over and the last window closed', async () => {
    // Prepare: 30 s windows; the first chunk is asked at 10 s, the rest only at 60 s (a slow pass)
    const held = await poolOfRunningAttempts(m, { ...LIMITS, checkpoint_timeout_secs: 30 });
    const deps = chunked(m);
    m.clock.set(at(10));
    const { collectionId } = await startCollection(deps, 'p');
    const first = (await statusOf(m, collectionId))[0]?.missing ?? [];
    const early = held.find((c) => c.agentId === first[0]) as Claimed;
    await send(m.deps, early, { type: 'checkpoint', state: { in: 'time' } });
    m.clock.set(at(50));
    const afterTheFirstWindow = await statusOf(m, collectionId);
    m.clock.set(at(60));
    await deliverPassWakeUps(m, deps, collectionTimerId('p', collectionId));
    // Act: at 61 s an agent of the first chunk and one of the last answer
    m.clock.set(at(61));
    const lateFirst = held.find((c) => c.agentId === first[1]) as Claimed;
    const last = held.find((c) => !first.includes(c.agentId)) as Claimed;
    const heartbeats = [await send(m.deps, lateFirst, { type: 'heartbeat' }), await send(m.deps, last, { type: 'heartbeat' })];
    await send(m.deps, lateFirst, { type: 'checkpoint', state: { too: 'late' } });
    await send(m.deps, last, { type: 'checkpoint', state: { in: 'its window' } });
    const whileOpen = await statusOf(m, collectionId);
    m.clock.set(at(90) - 1);
    const justBefore = await statusOf(m, collectionId);
    m.clock.set(at(90));
    const atTheClose = await statusOf(m, collectionId);
    // Assess
    expect(afterTheFirstWindow).toEqual([{ status: 'collecting', collected: [{ agentId: early.agentId, itemId: early.itemId, state: { in: 'time' } }], missing: first.slice(1) }]);
    expect(heartbeats).toMatchObject([{ action: 'continue' }, { action: 'checkpoint' }]);
    const collected = [
      { agentId: early.agentId, itemId: early.itemId, state: { in: 'time' } },
      { agentId: last.agentId, itemId: last.itemId, state: { in: 'its window' } },
    ];
    for (const status of [whileOpen, justBefore, atTheClose]) {
      expect(status[0]?.collected).toEqual(collected);
      expect(status[0]?.missing).toHaveLength(RUNNING - 2);
      expect(status[0]?.missing).toContain(lateFirst.agentId);
    }
    expect([whileOpen, justBefore, atTheClose].map((status) => status[0]?.status)).toEqual(['collecting', 'collecting', 'done']);
  });
});
