import { describe, expect, it } from 'vitest';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, cutOffAt, newPool, refusal, send } from './pool-test-support.js';

// Review finding: a split item holds its pool open while its `create_items` follow-up is on it, and
// its own `check_pool_finished` ran before that follow-up was cleared, so it always counted the split
// itself as pending. When the subtasks settled first (an answer cut off after creating them, retried
// by the wake-up 30 s later), every check saw something pending and the pool never finished: no
// PoolFinished, until someone happened to GET the pool.
describe('pools on dynalite: a split whose subtasks settle before its follow-ups are cleared', () => {
  const m = useTestManager();

  it('the pool finishes once, when the split item’s follow-ups are carried out again', async () => {
    // Prepare: i-1 times out once and is escalated (timeout_escalation 1, no grace)
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1']);
    const first = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: first.attempt, dueAt: at(10) });
    const escalationId = (await m.deps.pools.getItem('p', 'i-1'))?.escalation?.escalationId ?? '';
    // The answer's invocation creates the subtask, then is cut off (at the pool's reopening)
    await refusal(answerEscalation({ ...m.deps, pools: cutOffAt(m.deps.pools, 'savePool') }, escalationId, { option: 'split', subtasks: [{ itemId: 's-1' }] }));
    expect((await m.deps.pools.getItem('p', 'i-1'))?.pending?.map((f) => f.type)).toContain('create_items');
    // An agent takes the subtask and completes it meanwhile
    const sub = await claim(m.deps, 'agent-b');
    expect(sub.itemId).toBe('s-1');
    m.clock.set(at(15));
    await send(m.deps, sub, { type: 'complete', outcome: 'succeeded' });
    // Act: the split item's follow-up wake-up
    const split = await m.deps.pools.getItem('p', 'i-1');
    m.clock.set(split?.timerDueAt ?? at(60));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: split?.attempt ?? 1, dueAt: split?.timerDueAt ?? at(60) });
    // Assess: nothing is left to do, and the pool finished (without anyone reading it)
    expect((await m.deps.pools.getItem('p', 'i-1'))?.pending ?? []).toEqual([]);
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
  });
});
