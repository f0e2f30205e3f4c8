import { describe, expect, it } from 'vitest';
import { decideItem, decidePool } from '../../../shared/app/pools/pool-state-stores.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { onItemWakeUp } from '../../../shared/domain/pools/advance-attempt.js';
import { cancelPool as decideCancel } from '../../../shared/domain/pools/pool-decisions.js';
import type { HeartbeatReply } from '../../../shared/domain/pools/agent-calls.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import type { EpochMs } from '../../../shared/domain/time.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, send, withInterleaving, type Claimed } from './pool-test-support.js';

// An agent call (or an item's wake-up) reads the pool RUNNING, then its item's write lands after a
// cancel whose wake pass has not reached this item yet (a later chunk of a large pool, a cancel cut
// off after its pool write): the item's write cannot be conditional on the pool. Docs (agent-fleets,
// "When a pool stops"): a command start or finish or a `complete` after the stop gets 409
// `attempt_terminating`, a running attempt is terminating from the stop, a give-back after it waits
// in the stopped pool (no human is asked about cancelled work), and a deadline after the stop is no
// timeout. Each used to be answered, or decided, as if the pool still ran.
describe('a write decided on a pool read RUNNING that lands after the pool stopped (dynalite)', () => {
  const m = useTestManager();
  const GRACE = { cleanup_grace_period_secs: 30 };

  /** The pool is cancelled at `stoppedAt` just before the next item write lands; its wake pass does not run. */
  function cancelBeforeNextWrite(stoppedAt: EpochMs) {
    const { deps, store } = withInterleaving(m);
    store.beforeNextSave(() => decidePool(m.deps, 'p', (pool) => decideCancel(pool, 'operator', stoppedAt)));
    return deps;
  }

  const item = async () => {
    const stored = await m.deps.pools.getItem('p', 'i-1');
    if (!stored) throw new Error('item i-1 is gone');
    return stored;
  };

  async function running(config: Parameters<typeof newPool>[1]): Promise<Claimed> {
    await newPool(m.deps, config);
    return claim(m.deps, 'agent-a');
  }

  it('a command start is refused 409 attempt_terminating: the command never started and the attempt is terminating from the stop', async () => {
    // Prepare
    const agent = await running({ agent_timeout_secs: 600, timeout_config: GRACE });
    m.clock.set(at(20));
    const deps = cancelBeforeNextWrite(at(20));
    // Act
    const error = await refusal(send(deps, agent, { type: 'command_start', index: 0, commandType: 'shell' }));
    // Assess
    expect(error).toMatchObject({ code: 'attempt_terminating' });
    const stored = await item();
    expect(stored.run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' }, since: at(20), terminateBy: at(50) });
    expect(stored.run?.nextCommandIndex ?? 0).toBe(0);
    expect(m.bus.ofType('CommandStarted')).toEqual([]);
  });

  it('a command start whose write the wake pass reached before it was decided again is refused too, on the item as the pass left it', async () => {
    // Prepare: the pass reaches the item between the call's write and its second decision
    const agent = await running({ agent_timeout_secs: 600, timeout_config: GRACE });
    m.clock.set(at(20));
    const { deps, store } = withInterleaving(m);
    store.beforeNextSave(async () => {
      const stopped = await decidePool(m.deps, 'p', (pool) => decideCancel(pool, 'operator', at(20)));
      store.beforeNextSave(() => decideItem(m.deps, 'p', 'i-1', (current) => onItemWakeUp(current, stopped, at(20))));
    });
    // Act
    const error = await refusal(send(deps, agent, { type: 'command_start', index: 0, commandType: 'shell' }));
    // Assess: the started command stands (the pass wrote after it), but the attempt is terminating from the stop
    expect(error).toMatchObject({ code: 'attempt_terminating' });
    expect((await item()).run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' }, since: at(20), terminateBy: at(50) });
  });

  it('a heartbeat that writes nothing, deciding on an item another wrote after its pool read, reads the pool again too', async () => {
    // Prepare: before the heartbeat's write, a wake-up on the pool as it ran writes the same checkpoint request, then the pool is cancelled
    await newPool(m.deps, { agent_timeout_secs: 600, checkpoint_interval_secs: 60, timeout_config: GRACE });
    const agent = await claim(m.deps, 'agent-a');
    const runningPool = await m.deps.pools.getPool('p');
    if (!runningPool) throw new Error('pool p is gone');
    m.clock.set(at(61));
    const { deps, store } = withInterleaving(m);
    store.beforeNextSave(async () => {
      await decideItem(m.deps, 'p', 'i-1', (current) => onItemWakeUp(current, runningPool, at(61)));
      await decidePool(m.deps, 'p', (pool) => decideCancel(pool, 'operator', at(61)));
    });
    // Act
    const reply = (await send(deps, agent, { type: 'heartbeat' })) as HeartbeatReply;
    // Assess
    expect(reply).toMatchObject({ action: 'terminate', terminateBy: new Date(at(91)).toISOString() });
    expect((await item()).run?.terminating?.reason).toEqual({ kind: 'pool_stopped' });
  });

  it('a command finish is refused 409 attempt_terminating and kept as a late result', async () => {
    // Prepare
    const agent = await running({ agent_timeout_secs: 600, timeout_config: GRACE });
    await send(m.deps, agent, { type: 'command_start', index: 0, commandType: 'shell' });
    m.clock.set(at(20));
    const deps = cancelBeforeNextWrite(at(20));
    // Act
    const error = await refusal(send(deps, agent, { type: 'command_finish', index: 0, outcome: 'succeeded' }));
    // Assess
    expect(error).toMatchObject({ code: 'attempt_terminating' });
    const stored = await item();
    expect(stored.run?.terminating?.reason).toEqual({ kind: 'pool_stopped' });
    expect(stored.history[0]?.lateResults).toEqual([expect.objectContaining({ call: 'command_finish', result: { index: 0, outcome: 'succeeded' } })]);
    expect(m.bus.ofType('CommandCompleted')).toEqual([]);
  });

  it('a complete is refused 409 attempt_terminating, kept as a late result, and the item waits in the stopped pool once the attempt resolves', async () => {
    // Prepare
    const agent = await running({ agent_timeout_secs: 600, timeout_config: GRACE });
    m.clock.set(at(20));
    const deps = cancelBeforeNextWrite(at(20));
    // Act
    const error = await refusal(send(deps, agent, { type: 'complete', outcome: 'succeeded', result: { answer: 42 } }));
    const afterRefusal = await item();
    m.clock.set(at(21));
    await send(m.deps, agent, { type: 'terminated', cleanup: 'completed' });
    // Assess
    expect(error).toMatchObject({ code: 'attempt_terminating' });
    expect(afterRefusal.state).toBe('running');
    expect(afterRefusal.result).toBeUndefined();
    expect(afterRefusal.history[0]?.lateResults).toEqual([expect.objectContaining({ call: 'complete', result: { outcome: 'succeeded', result: { answer: 42 } } })]);
    expect(await item()).toMatchObject({ state: 'available', reason: 'pool_stopped' });
    expect(m.bus.ofType('AgentCompleted')).toEqual([]);
    expect(m.telemetry.count('AgentCompleted')).toBe(0);
  });

  it('a give-back that would escalate the item waits in the stopped pool instead: no human is asked about cancelled work', async () => {
    // Prepare: the first give-back escalates (timeout_escalation 1)
    const agent = await running({ agent_timeout_secs: 600, timeout_escalation: 1, timeout_config: GRACE });
    m.clock.set(at(20));
    const deps = cancelBeforeNextWrite(at(20));
    // Act
    const reply = await send(deps, agent, { type: 'terminated', cleanup: 'completed', partialResult: { done: 1 } });
    // Assess
    expect(reply).toEqual({ state: 'available' });
    const stored = await item();
    expect(stored).toMatchObject({ state: 'available', reason: 'pool_stopped', partialResult: { done: 1 } });
    expect(stored.escalation).toBeUndefined();
    expect(stored.returnCount ?? 0).toBe(0);
    expect(m.bus.ofType('TaskEscalated')).toEqual([]);
  });

  it("an item's wake-up at a deadline after the stop applies the stop, not a timeout: the item waits in the stopped pool, not in the DLQ", async () => {
    // Prepare: the agent deadline is at 60 s; the cancel was decided at 59 s and lands after the wake-up read the pool
    const agent = await running({ agent_timeout_secs: 60, timeout_config: { ...GRACE, timeout_action: 'dlq' } });
    m.clock.set(at(61));
    const deps = cancelBeforeNextWrite(at(59));
    // Act
    await firePoolTimer(deps, { scope: 'pool', jobId: itemTimerId('p', agent.itemId), fenceToken: agent.attempt, dueAt: at(60) });
    const terminating = await item();
    m.clock.set(at(89));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', agent.itemId), fenceToken: agent.attempt, dueAt: at(89) });
    // Assess
    expect(terminating.run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' }, since: at(59), terminateBy: at(89) });
    expect(terminating.timeoutCount).toBe(0);
    expect(m.bus.ofType('TimeoutOccurred')).toEqual([]);
    expect(await item()).toMatchObject({ state: 'available', reason: 'pool_stopped' });
  });

  it('a heartbeat at a deadline after the stop answers terminate by the stop + grace period, not the deadline + grace period', async () => {
    // Prepare
    const agent = await running({ agent_timeout_secs: 60, timeout_config: { ...GRACE, timeout_action: 'dlq' } });
    m.clock.set(at(61));
    const deps = cancelBeforeNextWrite(at(59));
    // Act
    const reply = (await send(deps, agent, { type: 'heartbeat' })) as HeartbeatReply;
    // Assess
    expect(reply).toMatchObject({ action: 'terminate', terminateBy: new Date(at(89)).toISOString() });
    expect((await item()).run?.terminating?.reason).toEqual({ kind: 'pool_stopped' });
    expect(m.bus.ofType('TimeoutOccurred')).toEqual([]);
  });
});
