import { describe, expect, it } from 'vitest';
import { answerEscalation, retryFromDlq } from '../../../../shared/domain/pools/item-answers.js';
import { cancelPool, completeIfDone, failPool, reopenPool, assertReopenable } from '../../../../shared/domain/pools/pool-decisions.js';
import { EscalationAnsweredError, ItemNotInDlqError, PoolFinishedError } from '../../../../shared/domain/pools/pool-errors.js';
import type { PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import type { Pool } from '../../../../shared/domain/pools/pool.js';
import { at, call, claimed, eventOf, eventTypes, poolWith, wake } from './pool-fixtures.js';

const checkpointPool = () => poolWith({ agent_timeout_secs: 1_000, checkpoint_interval_secs: 10, checkpoint_timeout_secs: 2, stall_threshold: 3, timeout_config: { cleanup_grace_period_secs: 5 } });

describe('checkpoints and stalls (seed 002)', () => {
  it('opens a request every interval from the claim; the heartbeat answers checkpoint until one is given', () => {
    // Prepare
    const pool = checkpointPool();
    const item = claimed(pool);
    // Act
    const { state: asked, effects } = wake(item, pool, 10);
    const answer = call(asked, pool, 11, { type: 'heartbeat' }).reply;
    const given = call(asked, pool, 11, { type: 'checkpoint', state: { step: 4 }, progress: 0.4 }).state;
    const after = call(given, pool, 11.5, { type: 'heartbeat' }).reply;
    // Assess
    expect(item.timerDueAt).toBe(at(10));
    expect(eventOf(effects, 'CheckpointRequested')).toMatchObject({ answerBy: new Date(at(12)).toISOString() });
    expect(answer).toMatchObject({ action: 'checkpoint' });
    expect(given.lastCheckpoint).toEqual({ state: { step: 4 }, progress: 0.4, at: at(11), attempt: 1 });
    expect(after).toMatchObject({ action: 'continue' });
    expect(given.timerDueAt).toBe(at(20));
  });

  it('an unanswered request is a miss; misses never move the agent deadline; a later checkpoint does not erase one', () => {
    // Prepare
    const pool = checkpointPool();
    const item = claimed(pool);
    // Act
    const missed = wake(item, pool, 12);
    const later = call(missed.state, pool, 13, { type: 'checkpoint', state: {} }).state;
    // Assess
    expect(eventOf(missed.effects, 'CheckpointMissed')).toMatchObject({ misses: 1 });
    expect(later.run?.checkpointMisses).toBe(1);
    expect(later.run?.agentDeadlineAt).toBe(at(1_000));
  });

  it('stall_threshold misses stall the agent: terminate, then the item is available again with reason agent_stalled; not a timeout', () => {
    // Prepare
    const pool = checkpointPool();
    const item = claimed(pool);
    // Act: windows at 10, 20, 30 each missed 2 s later
    const stalled = wake(item, pool, 32);
    const back = wake(stalled.state, pool, 37);
    const next = claimed(pool, { ...back.state, lastCheckpoint: { state: { resume: 1 }, at: at(5), attempt: 1 } }, 40, 'agent-b');
    // Assess
    expect(eventTypes(stalled.effects).filter((t) => t === 'CheckpointMissed')).toHaveLength(3);
    expect(eventOf(stalled.effects, 'AgentStalled')).toMatchObject({ misses: 3, terminateBy: new Date(at(37)).toISOString() });
    expect(call(stalled.state, pool, 33, { type: 'heartbeat' }).reply).toMatchObject({ action: 'terminate' });
    expect(back.state).toMatchObject({ state: 'available', reason: 'agent_stalled', timeoutCount: 0 });
    expect(back.state.history[0]).toMatchObject({ outcome: 'stalled', resolution: 'force' });
    expect(next.run?.checkpointMisses).toBe(0);
    expect(next.lastCheckpoint?.state).toEqual({ resume: 1 });
  });

  it('an item that stalls every agent ends escalated at the timeout_escalation-th stall, not back in the pool forever', () => {
    // Prepare: an agent limit far beyond the stalls, so only stalls end the attempts
    const pool = poolWith({ agent_timeout_secs: 100_000, checkpoint_interval_secs: 10, checkpoint_timeout_secs: 2, stall_threshold: 1, timeout_escalation: 3, timeout_config: { cleanup_grace_period_secs: 0 } });
    // Act: three agents in turn never answer a checkpoint
    let item = claimed(pool);
    const fates: PoolItem[] = [];
    let effects: ReturnType<typeof wake>['effects'] = [];
    for (let n = 0; n < 3; n++) {
      const start = 100 * n;
      const { state, effects: stallEffects } = wake(item, pool, start + 12);
      effects = stallEffects;
      fates.push(state);
      if (state.state === 'available') item = claimed(pool, state, start + 100, `agent-${n + 1}`);
    }
    const escalated = fates[2] as PoolItem;
    // Assess
    expect(fates.slice(0, 2).map((fate) => [fate.state, fate.reason])).toEqual([['available', 'agent_stalled'], ['available', 'agent_stalled']]);
    expect(escalated).toMatchObject({ state: 'escalated', stallCount: 3, timeoutCount: 0, escalation: { escalationId: 'p~i-1~s3', status: 'pending' } });
    expect(escalated.escalation?.question).toContain('stalled 3 times');
    expect(eventOf(effects, 'TaskEscalated')).toMatchObject({ stallCount: 3, timeoutCount: 0 });
    expect(escalated.pending).toContainEqual({ type: 'index_escalation', escalationId: 'p~i-1~s3' });
  });
});

describe('escalation after timeout_escalation timeouts (seed 002)', () => {
  const retryPool = (action: 'retry' | 'dlq' | 'skip' = 'retry') =>
    poolWith({ agent_timeout_secs: 10, timeout_escalation: 2, timeout_config: { timeout_action: action, cleanup_grace_period_secs: 0 } });

  function timeOutTwice(pool: Pool): PoolItem {
    const once = wake(claimed(pool), pool, 10).state;
    return wake(claimed(pool, once, 20), pool, 30).state;
  }

  it('the N-th timeout escalates with the four options instead of retrying; TaskEscalated goes on the bus', () => {
    // Prepare
    const pool = retryPool();
    const once = wake(claimed(pool), pool, 10).state;
    // Act
    const { state, effects } = wake(claimed(pool, once, 20), pool, 30);
    // Assess
    expect(once.state).toBe('available');
    expect(state.state).toBe('escalated');
    expect(state.escalation).toMatchObject({ escalationId: 'p~i-1~2', status: 'pending' });
    expect(eventOf(effects, 'TaskEscalated')).toMatchObject({ options: ['split', 'clarify', 'increase_timeout', 'skip'], timeoutCount: 2 });
    expect(state.pending).toContainEqual({ type: 'index_escalation', escalationId: 'p~i-1~2' });
  });

  it('counts timeouts under dlq too (a redriven item timing out again), never under skip', () => {
    // Prepare
    const dlq = retryPool('dlq');
    const skip = retryPool('skip');
    const dead = wake(claimed(dlq), dlq, 10).state;
    // Act
    const again = wake(claimed(dlq, retryFromDlq(dead, undefined, dlq.config, at(10)).state, 20), dlq, 30).state;
    const skipped = wake(claimed(skip), skip, 10).state;
    // Assess
    expect(dead.state).toBe('dlq');
    expect(again.state).toBe('escalated');
    expect(skipped.timeoutCount).toBe(0);
  });

  it('increase_timeout: back to the pool with that limit, timeoutCount kept; a second answer is refused', () => {
    // Prepare
    const pool = retryPool();
    const escalated = timeOutTwice(pool);
    // Act
    const answered = answerEscalation(escalated, 'p~i-1~2', { option: 'increase_timeout', timeoutSeconds: 1_800 }, pool.config, at(40)).state;
    const reclaimed = claimed(pool, answered, 41);
    // Assess
    expect(answered).toMatchObject({ state: 'available', limitSeconds: 1_800, timeoutCount: 2 });
    expect(reclaimed.run?.agentDeadlineAt).toBe(at(41 + 1_800));
    expect(() => answerEscalation(answered, 'p~i-1~2', { option: 'skip' }, pool.config, at(41))).toThrow(EscalationAnsweredError);
  });

  it('clarify adds the text to the input; split creates the subtasks; skip skips', () => {
    // Prepare
    const pool = retryPool();
    const escalated = timeOutTwice(pool);
    // Act
    const clarified = answerEscalation(escalated, 'p~i-1~2', { option: 'clarify', clarification: 'only the README' }, pool.config, at(40)).state;
    const split = answerEscalation(escalated, 'p~i-1~2', { option: 'split', subtasks: [{ itemId: 'i-1a', input: 1 }, { itemId: 'i-1b' }] }, pool.config, at(40)).state;
    const skipped = answerEscalation(escalated, 'p~i-1~2', { option: 'skip' }, pool.config, at(40)).state;
    // Assess
    expect(clarified).toMatchObject({ state: 'available', input: { n: 1, clarification: 'only the README' } });
    expect(split.state).toBe('split');
    expect(split.pending).toContainEqual({ type: 'create_items', items: [{ itemId: 'i-1a', input: 1 }, { itemId: 'i-1b', input: null }] });
    expect(skipped.state).toBe('skipped');
    expect(skipped.pending).toContainEqual({ type: 'check_pool_finished' });
  });

  it('redrive takes only DLQ items', () => {
    // Prepare
    const pool = retryPool();
    const running = claimed(pool);
    // Assess
    expect(() => retryFromDlq(running, 60, pool.config, at(0))).toThrow(ItemNotInDlqError);
  });
});

describe('the pool’s final state', () => {
  const counts = (over: Partial<Record<'available' | 'running' | 'escalated' | 'succeeded' | 'dlq', number>> = {}) => ({
    available: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, dlq: 0, escalated: 0, ...over,
  });

  it('COMPLETED when nothing is available, running or escalated; DLQ items do not hold it open', () => {
    // Prepare
    const pool = poolWith();
    // Act
    const done = completeIfDone(pool, counts({ succeeded: 3, dlq: 1 }), at(5));
    // Assess
    expect(done.state).toMatchObject({ status: 'COMPLETED', finishedAt: at(5) });
    expect(eventTypes(done.effects)).toEqual(['PoolFinished']);
    expect(completeIfDone(pool, counts({ escalated: 1 }), at(5)).state).toBe(pool);
    expect(completeIfDone(pool, counts({ running: 1 }), at(5)).state).toBe(pool);
  });

  it('a failed or cancelled pool stays so; running attempts are told to terminate and end cancelled', () => {
    // Prepare
    const pool = poolWith({ timeout_config: { cleanup_grace_period_secs: 5 } });
    const item = claimed(pool);
    const failed = failPool(pool, 'x', at(3)).state;
    // Act
    const told = call(item, failed, 4, { type: 'heartbeat' });
    const ended = wake(told.state, failed, 9).state;
    // Assess
    expect(failed.status).toBe('FAILED');
    expect(failPool(failed, 'again', at(4)).state).toBe(failed);
    expect(() => cancelPool(failed, undefined, at(4))).toThrow(PoolFinishedError);
    const cancelled = cancelPool(pool, 'first', at(3)).state;
    expect(cancelPool(cancelled, 'again', at(4)).state).toBe(cancelled);
    expect(() => assertReopenable(failed)).toThrow(PoolFinishedError);
    expect(reopenPool(failed).state).toBe(failed);
    // The grace period runs from the pool's end (3 s), not from when the agent heard of it
    expect(told.reply).toEqual({ action: 'terminate', deadlineAt: new Date(at(900)).toISOString(), terminateBy: new Date(at(8)).toISOString() });
    expect(ended.history[0]).toMatchObject({ outcome: 'cancelled', resolution: 'force' });
  });
  it('an attempt whose grace period ended before its pool was cancelled takes its fate as of then, however late the wake-up', () => {
    // Prepare: timeout at 10 s, grace until 15 s; the pool is cancelled at 20 s and no timer fired before 21 s
    const pool = poolWith({ agent_timeout_secs: 10, timeout_escalation: 1, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 5 } });
    const cancelled = cancelPool(pool, 'stop', at(20)).state;
    // Act
    const { state } = wake(claimed(pool), cancelled, 21);
    // Assess: the first timeout escalates (timeout_escalation 1), resolved by force at 15 s
    expect(state).toMatchObject({ state: 'escalated', timeoutCount: 1 });
    expect(state.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'force', endedAt: at(15) });
  });

  it('an attempt that timed out or stalled and is resolved after its pool was cancelled asks no human and retries nowhere: it waits in the pool', () => {
    // Prepare: the second timeout (or stall) would escalate; each attempt is terminating when the pool is cancelled
    const timeouts = poolWith({ agent_timeout_secs: 10, timeout_escalation: 2, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 5 } });
    const stalls = poolWith({ agent_timeout_secs: 100_000, checkpoint_interval_secs: 10, checkpoint_timeout_secs: 2, stall_threshold: 1, timeout_escalation: 1, timeout_config: { cleanup_grace_period_secs: 5 } });
    const once = wake(wake(claimed(timeouts), timeouts, 10).state, timeouts, 15).state;
    const timingOut = wake(claimed(timeouts, once, 20), timeouts, 30).state;
    const stalling = wake(claimed(stalls), stalls, 12).state;
    // Act: the pool is cancelled during the grace period; the attempts then end, gracefully and by force
    const graceful = call(timingOut, cancelPool(timeouts, 'stop', at(31)).state, 32, { type: 'terminated', cleanup: 'completed' });
    const forced = wake(stalling, cancelPool(stalls, 'stop', at(13)).state, 17);
    // Assess
    expect(once.state).toBe('available');
    expect(timingOut.run?.terminating?.reason.kind).toBe('timeout');
    expect(stalling.run?.terminating?.reason.kind).toBe('stall');
    for (const ended of [graceful, forced]) {
      expect(ended.state).toMatchObject({ state: 'available', reason: 'pool_stopped' });
      expect(ended.state.escalation).toBeUndefined();
      expect(eventTypes(ended.effects)).not.toContain('TaskEscalated');
    }
  });
});
