import { describe, expect, it } from 'vitest';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getItem } from '../../../shared/app/pools/get-pool.js';
import { InvalidTokenError, type VigilError } from '../../../shared/domain/errors.js';
import { AttemptTerminatingError, StaleAttemptError } from '../../../shared/domain/pools/pool-errors.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, send, withInterleaving } from './pool-test-support.js';

const timerOf = (attempt: number, dueAt: number) => ({ scope: 'pool' as const, jobId: itemTimerId('p', 'i-1'), fenceToken: attempt, dueAt });
const published = (m: { bus: { published: Array<{ detailType: string }> } }, type: string) => m.bus.published.filter((e) => e.detailType === type);

describe('pools on dynalite: claims, attempts, races', () => {
  const m = useTestManager();

  it('two agents racing for the one item: exactly one wins, the other is told nothing is available', async () => {
    // Prepare
    const { deps, store } = withInterleaving(m);
    await newPool(deps, {});
    let loser: unknown = 'not run';
    store.beforeNextSave(async () => {
      loser = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    });
    // Act
    const winner = await claimPoolItem(deps, 'p', { agentId: 'agent-a', kind: 'agent' });
    // Assess: agent-b's write landed first, so agent-a's conditional write lost and found nothing left
    expect(loser).toMatchObject({ itemId: 'i-1', attempt: 1 });
    expect(winner).toBeUndefined();
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.history.map((entry) => entry.agentId)).toEqual(['agent-b']);
  });

  it('the same create sent again after an agent claimed never turns back the claimed item', async () => {
    // Prepare: the first create lands and an agent claims
    await newPool(m.deps, {});
    await claim(m.deps, 'agent-a');
    // Act
    const second = await newPool(m.deps, {});
    // Assess
    expect(second.created).toBe(false);
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item).toMatchObject({ state: 'running', attempt: 1 });
  });

  it('many agents claiming at once from a small pool: every item is held by exactly one agent', async () => {
    // Prepare
    await newPool(m.deps, {}, ['a', 'b', 'c']);
    // Act
    const claims = await Promise.all(Array.from({ length: 8 }, (_, i) => claimPoolItem(m.deps, 'p', { agentId: `agent-${i}`, kind: 'agent' })));
    // Assess
    const won = claims.filter((c) => c !== undefined).map((c) => c.itemId);
    expect(won.sort()).toEqual(['a', 'b', 'c']);
  });

  it('a completion racing the timeout: the completion wrote first, the timeout finds nothing to do', async () => {
    // Prepare
    const { deps, store } = withInterleaving(m);
    await newPool(deps, { agent_timeout_secs: 10 });
    const agent = await claim(m.deps, 'agent-a');
    const completer = { ...m.deps, clock: { now: () => at(9.5) } };
    store.beforeNextSave(() => send(completer, agent, { type: 'complete', outcome: 'succeeded', result: { ok: 1 } }));
    // Act: the timer fires at the deadline, but the completion (sent at 9.5 s) lands between its read and its write
    m.clock.set(at(10));
    await firePoolTimer(deps, timerOf(1, at(10)));
    // Assess
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.state).toBe('succeeded');
    expect(item?.history[0]).toMatchObject({ outcome: 'succeeded' });
    expect(published(m, 'TimeoutOccurred')).toHaveLength(0);
    expect(published(m, 'AgentCompleted')).toHaveLength(1);
  });

  it('a completion racing the timeout: the timeout wrote first, the completion is refused and kept', async () => {
    // Prepare
    const { deps, store } = withInterleaving(m);
    await newPool(deps, { agent_timeout_secs: 10 });
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    store.beforeNextSave(() => firePoolTimer(m.deps, timerOf(1, at(10))));
    // Act
    const error = await refusal(send(deps, agent, { type: 'complete', outcome: 'succeeded', result: { ok: 1 } }));
    // Assess
    expect(error).toBeInstanceOf(AttemptTerminatingError);
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.state).toBe('running');
    expect(item?.result).toBeUndefined();
    expect(item?.history[0]?.lateResults?.[0]).toMatchObject({ call: 'complete' });
    expect(published(m, 'TimeoutOccurred')).toHaveLength(1);
    expect(published(m, 'AgentCompleted')).toHaveLength(0);
  });

  it('a late result from an old attempt is refused with stale_attempt and shown in the item’s history', async () => {
    // Prepare: attempt 1 times out (retry, no grace), attempt 2 claims
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } });
    const first = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, timerOf(1, at(10)));
    const second = await claim(m.deps, 'agent-b');
    // Act
    const error = await refusal(send(m.deps, first, { type: 'complete', outcome: 'succeeded', result: { stale: true } }));
    const forged = await refusal(send(m.deps, { ...first, attempt: 2 }, { type: 'heartbeat' }));
    // Assess
    expect(second.attempt).toBe(2);
    expect(error).toBeInstanceOf(StaleAttemptError);
    expect(forged).toBeInstanceOf(InvalidTokenError);
    const view = await getItem(m.deps, 'p', 'i-1');
    expect(view.state).toBe('running');
    expect(view.history[0]).toMatchObject({ attempt: 1, outcome: 'timed_out', lateResults: [{ call: 'complete', result: { outcome: 'succeeded', result: { stale: true } } }] });
  });

  it('a stale wake-up of an older attempt changes nothing', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } });
    await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, timerOf(1, at(10)));
    await claim(m.deps, 'agent-b');
    const before = await m.snapshot();
    // Act
    m.clock.set(at(11));
    await firePoolTimer(m.deps, timerOf(1, at(10)));
    // Assess
    expect(await m.snapshot()).toEqual(before);
  });
});

// Review finding: a claim that read the pool RUNNING took an item after a cancel had woken the running
// items, and answered 200 with a token in a CANCELLED pool.
describe('a claim racing a cancel (dynalite)', () => {
  const m = useTestManager();

  it('a claim that read the pool RUNNING and took an item after the cancel landed is answered 409 pool_finished, and that attempt is told to terminate at once', async () => {
    await newPool(m.deps, { agent_timeout_secs: 600 }, ['i-1']);
    const { deps, store } = withInterleaving(m);
    // The claim has read the pool as RUNNING; before its item write, the pool is cancelled (and its running items woken: none)
    store.beforeNextSave(() => cancelPool(m.deps, 'p', 'stop'));
    const outcome = await claimPoolItem(deps, 'p', { agentId: 'agent-a', kind: 'agent' }).catch((e: unknown) => e);
    expect((await m.deps.pools.getPool('p'))?.status).toBe('CANCELLED');
    // Assess: no agent holds an item of a cancelled pool; the attempt the claim took is told to terminate at once, its grace end armed
    expect((outcome as VigilError).code).toBe('pool_finished');
    const taken = await m.deps.pools.getItem('p', 'i-1');
    const terminateBy = m.clock.now() + 30_000;
    expect(taken?.run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' }, terminateBy });
    expect(m.timers.current(itemTimerId('p', 'i-1'))).toMatchObject({ dueAt: terminateBy });
  });
});
