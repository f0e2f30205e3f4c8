import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { poolPk } from '../../../shared/adapters/aws/pool-keys.js';
import { collectionStatus, startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { PASS_CHUNK } from '../../../shared/app/pools/running-items-pass.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { escapedPayload, LAMBDA_ANSWER_LIMIT, lambdaAnswerBytes } from './largest-items.js';
import { collectionTimerId } from '../../../shared/domain/pools/pool-item.js';
import { claim, deliverPassWakeUps, newPool, send, type Claimed } from './pool-test-support.js';

type Status = Awaited<ReturnType<typeof collectionStatus>>;

describe('pools on dynalite: a checkpoint collection', () => {
  const m = useTestManager();

  async function runningAgents(count: number): Promise<Claimed[]> {
    const ids = Array.from({ length: count }, (_, i) => `i-${String(i).padStart(4, '0')}`);
    await newPool(m.deps, { agent_timeout_secs: 3_600 }, ids);
    const claims: Claimed[] = [];
    for (let i = 0; i < count; i++) claims.push(await claim(m.deps, `agent-${i}`));
    return claims;
  }

  /** A collection whose pass has asked every running agent: its first chunk in the call, the others at their wake-ups. */
  async function collectFromEveryone(): Promise<{ collectionId: string }> {
    const { collectionId } = await startCollection(m.deps, 'p');
    await deliverPassWakeUps(m, m.deps, collectionTimerId('p', collectionId));
    return { collectionId };
  }

  /** Every page of a collection's status, following nextCursor. */
  async function allPages(collectionId: string): Promise<Status[]> {
    const pages = [await collectionStatus(m.deps, 'p', collectionId)];
    for (let cursor = pages[0]?.nextCursor; cursor !== undefined; cursor = pages.at(-1)?.nextCursor) {
      pages.push(await collectionStatus(m.deps, 'p', collectionId, undefined, cursor));
    }
    return pages;
  }

  // Review finding: the collection asked the first 150 running agents only, and said nothing of the rest.
  // 160 agents: past those 150, in seven chunks of the pass (PASS_CHUNK, 25), the last one partial. (It
  // was 520, past the 500 agents of one stored row before passes; such rows are the test below's.)
  const AGENTS = 160;
  it('asks every running agent (160: past the 150 it once stopped at, in seven chunks of its pass), and names each one that did not answer', async () => {
    // Prepare: the running agents; the first three answer
    expect(AGENTS > 150 && AGENTS > 6 * PASS_CHUNK && AGENTS % PASS_CHUNK !== 0).toBe(true);
    const claims = await runningAgents(AGENTS);
    const { collectionId } = await collectFromEveryone();
    for (const claimed of claims.slice(0, 3)) await send(m.deps, claimed, { type: 'checkpoint', state: { at: claimed.itemId } });
    // Act: the window closes
    m.clock.set(at(31));
    const pages = await allPages(collectionId);
    // Assess
    const collected = pages.flatMap((page) => page.collected);
    const missing = pages.flatMap((page) => page.missing);
    expect(pages.every((page) => page.status === 'done')).toBe(true);
    expect(collected.map((entry) => entry.itemId).sort()).toEqual(claims.slice(0, 3).map((c) => c.itemId).sort());
    expect(new Set(missing)).toEqual(new Set(claims.slice(3).map((c) => c.agentId)));
    expect(missing).toHaveLength(AGENTS - 3);
  }, 180_000);

  // Review finding: 150 states of 32 KB went into one answer, 9.8 MB once escaped.
  it('answers in pages that each fit a Lambda answer when every agent sends the largest state', async () => {
    // Prepare: 150 agents, each answering with a 32 KB state that escapes to nearly twice that
    const claims = await runningAgents(150);
    const { collectionId } = await collectFromEveryone();
    const state = escapedPayload(32 * 1024 - 100);
    for (const claimed of claims) await send(m.deps, claimed, { type: 'checkpoint', state });
    // Act
    const pages = await allPages(collectionId);
    // Assess
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(lambdaAnswerBytes(page)).toBeLessThan(LAMBDA_ANSWER_LIMIT);
    expect(pages.flatMap((page) => page.collected)).toHaveLength(150);
    expect(pages.flatMap((page) => page.missing)).toEqual([]);
    expect(pages.map((page) => page.status)).toEqual(pages.map(() => 'collecting'));
  }, 180_000);

  // Collections asked in one call, before passes, are stored as their head and rows of 500 agents
  // sharing one window: a deployed table keeps them, and their status still reads them.
  it('a collection stored in one call before passes (rows of 500, one window) answers as it did', async () => {
    // Prepare: 501 agents asked, two of them running here, one in each row; both answer within the window
    const [first, second] = (await runningAgents(2)) as [Claimed, Claimed];
    const others = Array.from({ length: 499 }, (_, i) => ({ agentId: `gone-${i}`, itemId: `gone-${i}`, attempt: 1 }));
    const asked = [first, ...others, second].map((c) => ({ agentId: c.agentId, itemId: c.itemId, attempt: c.attempt }));
    const pk = poolPk('p');
    await m.doc.send(new PutCommand({ TableName: m.tableName, Item: { pk, sk: 'COLL#one-call#0', asked: asked.slice(0, 500) } }));
    await m.doc.send(new PutCommand({ TableName: m.tableName, Item: { pk, sk: 'COLL#one-call#1', asked: asked.slice(500) } }));
    await m.doc.send(new PutCommand({ TableName: m.tableName, Item: { pk, sk: 'COLL#one-call', poolId: 'p', collectionId: 'one-call', startedAt: at(0), until: at(30), agentCount: 501 } }));
    m.clock.set(at(5));
    for (const claimed of [first, second]) await send(m.deps, claimed, { type: 'checkpoint', state: { from: claimed.agentId } });
    // Act
    const whileOpen = await allPages('one-call');
    m.clock.set(at(30));
    const closed = await allPages('one-call');
    // Assess
    for (const [pages, status] of [[whileOpen, 'collecting'], [closed, 'done']] as const) {
      expect(pages.map((page) => page.status)).toEqual(pages.map(() => status));
      expect(pages.flatMap((page) => page.collected)).toEqual([first, second].map((c) => ({ agentId: c.agentId, itemId: c.itemId, state: { from: c.agentId } })));
      expect(pages.flatMap((page) => page.missing)).toEqual(others.map((agent) => agent.agentId));
    }
  });

  it('is done at once when every agent answered and one page holds them all', async () => {
    // Prepare
    const claims = await runningAgents(2);
    const { collectionId } = await startCollection(m.deps, 'p');
    // Act
    for (const claimed of claims) await send(m.deps, claimed, { type: 'checkpoint', state: { n: 1 } });
    // Assess
    expect(await collectionStatus(m.deps, 'p', collectionId)).toMatchObject({ status: 'done', missing: [] });
  });
});

// Review finding: the collection's status read only the item's last checkpoint, so a checkpoint sent
// after the window replaced the answer and the agent was reported missing.
describe('a collection keeps the answers it got (dynalite)', () => {
  const m = useTestManager();

  it('an agent that answered within the window stays collected after it checkpoints again later', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 300, checkpoint_timeout_secs: 30 }, ['i-1']);
    const agent = await claim(m.deps, 'agent-a');
    const { collectionId } = await startCollection(m.deps, 'p');
    m.clock.set(at(1));
    await send(m.deps, agent, { type: 'checkpoint', state: { step: 'answered-the-collection' } });
    expect((await collectionStatus(m.deps, 'p', collectionId)).collected.map((c) => c.agentId)).toEqual(['agent-a']);
    // Act: the window closes; the agent keeps working and sends an unasked checkpoint (kept, per the contract)
    m.clock.set(at(60));
    await send(m.deps, agent, { type: 'checkpoint', state: { step: 'later' } });
    const after = await collectionStatus(m.deps, 'p', collectionId);
    // Assess
    expect(after.status).toBe('done');
    expect(after.missing).toEqual([]);
    expect(after.collected).toEqual([{ agentId: 'agent-a', itemId: 'i-1', state: { step: 'answered-the-collection' } }]);
    expect((await m.deps.pools.getItem('p', 'i-1'))?.lastCheckpoint?.state).toEqual({ step: 'later' });
  });

  it('an agent that answered a collection still counts as having answered it after it answers a later one (its earlier state is not kept)', async () => {
    // Prepare: one running agent answers a collection
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 300, checkpoint_timeout_secs: 30 }, ['i-1']);
    const agent = await claim(m.deps, 'agent-a');
    const first = await startCollection(m.deps, 'p');
    m.clock.set(at(1));
    await send(m.deps, agent, { type: 'checkpoint', state: { answered: 'first' } });
    expect((await collectionStatus(m.deps, 'p', first.collectionId)).collected).toEqual([{ agentId: 'agent-a', itemId: 'i-1', state: { answered: 'first' } }]);
    // Act: a later collection, which it answers too
    m.clock.set(at(100));
    const second = await startCollection(m.deps, 'p');
    m.clock.set(at(101));
    await send(m.deps, agent, { type: 'checkpoint', state: { answered: 'second' } });
    // Assess: the first says it answered (never missing), the second has its state
    const earlier = await collectionStatus(m.deps, 'p', first.collectionId);
    expect(earlier.missing).toEqual([]);
    expect(earlier.collected).toEqual([{ agentId: 'agent-a', itemId: 'i-1', state: null, replaced: true }]);
    expect((await collectionStatus(m.deps, 'p', second.collectionId)).collected).toEqual([{ agentId: 'agent-a', itemId: 'i-1', state: { answered: 'second' } }]);
  });

  it('the window ends at its last millisecond: a status that says done never changes, and an answer at the close is a plain checkpoint', async () => {
    // Prepare: two running agents; the window is checkpoint_timeout_secs (30 s) from the start
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 300, checkpoint_timeout_secs: 30 }, ['i-1', 'i-2']);
    const early = await claim(m.deps, 'agent-a');
    const late = await claim(m.deps, 'agent-b');
    const { collectionId } = await startCollection(m.deps, 'p');
    const closesAt = at(30);
    // Act: one answers 1 ms before the close; at the close the status is read, then the other answers
    m.clock.set(closesAt - 1);
    const askedBefore = await send(m.deps, late, { type: 'heartbeat' });
    await send(m.deps, early, { type: 'checkpoint', state: { in: 'time' } });
    m.clock.set(closesAt);
    const askedAtClose = await send(m.deps, late, { type: 'heartbeat' });
    const atClose = await collectionStatus(m.deps, 'p', collectionId);
    await send(m.deps, late, { type: 'checkpoint', state: { too: 'late' } });
    const afterwards = await collectionStatus(m.deps, 'p', collectionId);
    // Assess
    expect([askedBefore, askedAtClose]).toMatchObject([{ action: 'checkpoint' }, { action: 'continue' }]);
    for (const status of [atClose, afterwards]) {
      expect(status).toMatchObject({ status: 'done', collected: [{ agentId: early.agentId, state: { in: 'time' } }], missing: [late.agentId] });
    }
  });
});
