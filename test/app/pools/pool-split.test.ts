import { describe, expect, it } from 'vitest';
import type { VigilError } from '../../../shared/domain/errors.js';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { itemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import type { TestManager } from '../support/test-manager.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, send, withInterleaving } from './pool-test-support.js';

/** The store as a crashed invocation left it: the split's subtasks were never created. */
class CrashBeforeSubtasks extends DynamoPoolStore {
  override async createItems(_items: readonly PoolItem[]): Promise<void> {
    throw new Error('crashed before the subtasks were written');
  }
}

describe('pools on dynalite: a split answer', () => {
  const m = useTestManager();

  // Found by the simulator (seed 21 with --pools 1): the split was written first and its subtasks
  // created after; a crash in between let GET /pools complete the pool, and the subtasks, created
  // by the retry, sat `available` in a COMPLETED pool that no agent may claim from. The split item
  // now holds its pool open until its follow-up has created them.
  it('a crash between the answer and its subtasks never completes the pool without them', async () => {
    // Prepare: i-2 succeeds; i-1 times out once and is escalated (timeout_escalation 1, no grace)
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1', 'i-2']);
    const first = await claim(m.deps, 'agent-a');
    const second = await claim(m.deps, 'agent-b');
    const [slow, quick] = first.itemId === 'i-1' ? [first, second] : [second, first];
    await send(m.deps, quick, { type: 'complete', outcome: 'succeeded' });
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: slow.attempt, dueAt: at(10) });
    const escalationId = (await m.deps.pools.getItem('p', 'i-1'))?.escalation?.escalationId ?? '';
    const split = { option: 'split' as const, subtasks: [{ itemId: 'i-1.a' }, { itemId: 'i-1.b' }] };
    // Act: the answer's invocation dies before the subtasks exist; a client reads the pool; the item's wake-up comes
    await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeSubtasks(m.doc, m.tableName) }, escalationId, split));
    const meanwhile = await getPool(m.deps, 'p');
    const answered = await m.deps.pools.getItem('p', 'i-1');
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: answered?.attempt ?? 0, dueAt: answered?.timerDueAt ?? at(10) });
    // Assess: the pool kept running, and an agent can claim the subtasks
    expect(meanwhile.status).toBe('RUNNING');
    expect((await getPool(m.deps, 'p')).status).toBe('RUNNING');
    const claimed = [await claim(m.deps, 'agent-c'), await claim(m.deps, 'agent-d')].map((c) => c.itemId).sort();
    expect(claimed).toEqual(['i-1.a', 'i-1.b']);
  });
});

describe('pools on dynalite: the size of a split pool', () => {
  const m = useTestManager();

  // Noticed last session: `items` stayed the count at creation, so a pool's items and its counts
  // disagreed once a split added subtasks.
  it("a split's subtasks are counted among the pool's items", async () => {
    // Prepare: i-1 escalated after one timeout, i-2 still available
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1', 'i-2']);
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', agent.itemId), fenceToken: agent.attempt, dueAt: at(10) });
    const escalationId = (await m.deps.pools.getItem('p', agent.itemId))?.escalation?.escalationId ?? '';
    // Act
    await answerEscalation(m.deps, escalationId, { option: 'split', subtasks: [{ itemId: 's-1' }, { itemId: 's-2' }, { itemId: 's-3' }] });
    const pool = await getPool(m.deps, 'p');
    // Assess: two items at creation, three subtasks added; the split item itself is still one of them
    expect(pool.items).toBe(5);
    expect(pool.counts?.available).toBe(4);
  });
});

describe('pools on dynalite: a split answer refused', () => {
  const m = useTestManager();

  it('a split naming an item the pool already has, or one id twice, is refused and changes nothing', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1', 'i-2']);
    const first = await claim(m.deps, 'agent-a');
    await claim(m.deps, 'agent-b');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', first.itemId), fenceToken: first.attempt, dueAt: at(10) });
    const escalationId = (await m.deps.pools.getItem('p', first.itemId))?.escalation?.escalationId ?? '';
    const other = first.itemId === 'i-1' ? 'i-2' : 'i-1';
    // Act
    const existing = await refusal(answerEscalation(m.deps, escalationId, { option: 'split', subtasks: [{ itemId: other, input: 'half' }, { itemId: 's-1' }] }));
    const twice = await refusal(answerEscalation(m.deps, escalationId, { option: 'split', subtasks: [{ itemId: 's-1' }, { itemId: 's-1' }] }));
    // Assess
    expect((existing as VigilError).code).toBe('item_exists');
    expect((twice as VigilError).code).toBe('invalid_request');
    expect((await m.deps.pools.getItem('p', first.itemId))?.state).toBe('escalated');
    expect(await m.deps.pools.getItem('p', 's-1')).toBeUndefined();
  });

  // Review finding: the subtasks were created before the write that checks the answer, so a split
  // that lost to another answer still left its subtasks in the pool as work.
  it('a split that loses to another answer (409) creates no subtasks', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1']);
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: agent.attempt, dueAt: at(10) });
    const escalationId = (await m.deps.pools.getItem('p', 'i-1'))?.escalation?.escalationId ?? '';
    const { deps, store } = withInterleaving(m);
    store.beforeNextSave(() => answerEscalation(m.deps, escalationId, { option: 'skip' }));
    // Act
    const refused = await refusal(answerEscalation(deps, escalationId, { option: 'split', subtasks: [{ itemId: 's-1' }, { itemId: 's-2' }] }));
    // Assess
    expect((refused as VigilError).code).toBe('escalation_answered');
    expect((await m.deps.pools.getItem('p', 'i-1'))?.state).toBe('skipped');
    expect(await m.deps.pools.getItems([{ poolId: 'p', itemId: 's-1' }, { poolId: 'p', itemId: 's-2' }])).toEqual([]);
    expect((await getPool(m.deps, 'p')).status).toBe('COMPLETED');
  });
});

// Review findings: a split's subtask ids were checked but not reserved, so a racing split, or one
// after a crash postponed the first's subtasks, took an id, and one split's work was lost.

/** Two items, each timed out once and escalated (timeout_escalation 1, no grace). */
async function twoEscalatedItems(m: TestManager): Promise<{ x: string; y: string }> {
  await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['x', 'y']);
  const a = await claim(m.deps, 'agent-a');
  const b = await claim(m.deps, 'agent-b');
  m.clock.set(at(10));
  for (const c of [a, b]) await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', c.itemId), fenceToken: c.attempt, dueAt: at(10) });
  const x = (await m.deps.pools.getItem('p', 'x'))?.escalation?.escalationId ?? '';
  const y = (await m.deps.pools.getItem('p', 'y'))?.escalation?.escalationId ?? '';
  expect(x).not.toBe('');
  expect(y).not.toBe('');
  return { x, y };
}

/** Every accepted split's subtask exists with the input its answer gave it. */
async function inputsOfSubtasks(m: TestManager, ids: string[]): Promise<unknown[]> {
  return Promise.all(ids.map(async (id) => (await m.deps.pools.getItem('p', id))?.input));
}

describe('split subtask ids are reserved by the answer (dynalite)', () => {
  const m = useTestManager();

  it('a split whose subtasks are still pending (a crash) keeps their ids: a second split naming one is refused item_exists, and the first split’s subtask is created as given', async () => {
    const { x, y } = await twoEscalatedItems(m);
    // x's split is written but its invocation dies before creating the subtask
    await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeSubtasks(m.doc, m.tableName) }, x, { option: 'split', subtasks: [{ itemId: 's-1', input: 'from-x' }] }));
    expect((await m.deps.pools.getItem('p', 'x'))?.state).toBe('split');
    // Act: y's split names the same subtask id
    const second = await answerEscalation(m.deps, y, { option: 'split', subtasks: [{ itemId: 's-1', input: 'from-y' }] }).catch((e: VigilError) => e);
    // x's wake-up finishes its follow-up
    const split = await m.deps.pools.getItem('p', 'x');
    m.clock.set(split?.timerDueAt ?? at(60));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'x'), fenceToken: split?.attempt ?? 1, dueAt: split?.timerDueAt ?? at(60) });
    // Assess
    expect((second as VigilError).code).toBe('item_exists');
    expect(await inputsOfSubtasks(m, ['s-1'])).toEqual(['from-x']);
    expect((await m.deps.pools.getItem('p', 'y'))?.state).toBe('escalated');
  });

  it('a split answer refused because another answer won first frees the subtask ids it reserved', async () => {
    // Prepare: x's split (naming s-1) is overtaken by a skip answer to the same escalation
    const { x, y } = await twoEscalatedItems(m);
    const { deps, store } = withInterleaving(m);
    store.beforeNextSave(async () => {
      await answerEscalation(m.deps, x, { option: 'skip' });
    });
    const refused = await answerEscalation(deps, x, { option: 'split', subtasks: [{ itemId: 's-1', input: 'from-x' }] }).catch((e: unknown) => e);
    // Act: y's split names the same id
    const accepted = await answerEscalation(m.deps, y, { option: 'split', subtasks: [{ itemId: 's-1', input: 'from-y' }] });
    // Assess
    expect((refused as VigilError).code).toBe('escalation_answered');
    expect(accepted).toMatchObject({ option: 'split', itemState: 'split' });
    expect(await inputsOfSubtasks(m, ['s-1'])).toEqual(['from-y']);
  });

  it('of two splits racing with one subtask id exactly one is accepted, so no split’s subtask holds another’s input', async () => {
    const { x, y } = await twoEscalatedItems(m);
    const { deps, store } = withInterleaving(m);
    let yAnswer: unknown;
    // x's answer has checked s-1 is new; before its write, y's answer (also naming s-1) runs to completion
    store.beforeNextSave(async () => {
      yAnswer = await answerEscalation(m.deps, y, { option: 'split', subtasks: [{ itemId: 's-1', input: 'from-y' }] }).catch((e: unknown) => e);
    });
    const xAnswer = await answerEscalation(deps, x, { option: 'split', subtasks: [{ itemId: 's-1', input: 'from-x' }] }).catch((e: unknown) => e);
    const accepted = [xAnswer, yAnswer].filter((a) => !(a instanceof Error)).length;
    const splitItems = [(await m.deps.pools.getItem('p', 'x'))?.state, (await m.deps.pools.getItem('p', 'y'))?.state].filter((s) => s === 'split').length;
    // Assess: at most one split may own s-1; an item split into a subtask that holds another split's input lost its work
    expect(accepted).toBe(1);
    expect(splitItems).toBe(1);
  });
});
