import { describe, expect, it } from 'vitest';
import { AttemptTerminatingError, StaleAttemptError } from '../../../../shared/domain/pools/pool-errors.js';
import { OTHER_COMMAND_TYPES, withTimeoutStat } from '../../../../shared/domain/pools/item-history.js';
import { ITEM_BOUNDS, newItemStats } from '../../../../shared/domain/pools/pool-item.js';
import { at, call, claimed, eventOf, eventTypes, poolWith, wake } from './pool-fixtures.js';

describe('agent and command deadlines (seed 003 policies)', () => {
  it('per_agent: the agent deadline runs from the claim; at it TimeoutOccurred and heartbeats answer terminate', () => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 10 });
    const item = claimed(pool);
    // Act
    const before = wake(item, pool, 9.9);
    const { state: timedOut, effects } = wake(item, pool, 10);
    const reply = call(timedOut, pool, 11, { type: 'heartbeat' }).reply;
    // Assess
    expect(before.state).toBe(item);
    expect(eventOf(effects, 'TimeoutOccurred')).toMatchObject({ timeoutType: 'agent', limitSeconds: 10, elapsedSeconds: 10, action: 'dlq' });
    expect(timedOut.state).toBe('running');
    expect(timedOut.timerDueAt).toBe(at(40));
    expect(reply).toEqual({ action: 'terminate', deadlineAt: new Date(at(10)).toISOString(), terminateBy: new Date(at(40)).toISOString() });
  });

  it('per_agent does not enforce command limits; per_command enforces them and has no agent deadline', () => {
    // Prepare
    const perAgent = poolWith({ agent_timeout_secs: 100, timeout_config: { command_timeouts: { shell: 2 } } });
    const perCommand = poolWith({ timeout_config: { timeout_policy: 'per_command', command_timeouts: { shell: 2 } } });
    const a = call(claimed(perAgent), perAgent, 0, { type: 'command_start', index: 0, commandType: 'shell' }).state;
    const c = call(claimed(perCommand), perCommand, 0, { type: 'command_start', index: 0, commandType: 'shell' }).state;
    // Act
    const agentSide = wake(a, perAgent, 5);
    const commandSide = wake(c, perCommand, 2);
    // Assess
    expect(eventTypes(agentSide.effects)).not.toContain('TimeoutOccurred');
    expect(c.run?.agentDeadlineAt).toBeNull();
    expect(eventOf(commandSide.effects, 'TimeoutOccurred')).toMatchObject({ timeoutType: 'command', commandIndex: 0, commandType: 'shell', limitSeconds: 2 });
  });

  it('hybrid: whichever comes first, the command deadline or the agent deadline', () => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 5, timeout_config: { timeout_policy: 'hybrid', command_timeouts: { claude_1: 60 } } });
    const item = call(claimed(pool), pool, 1, { type: 'command_start', index: 1, commandType: 'claude' });
    // Act
    const { effects } = wake(item.state, pool, 5);
    // Assess
    expect(item.reply).toEqual({ deadlineAt: new Date(at(5)).toISOString() });
    expect(eventOf(effects, 'TimeoutOccurred')).toMatchObject({ timeoutType: 'agent' });
  });

  it('an item written before several commands could run (its one `command`) keeps that command\'s deadline when the next starts', () => {
    // Prepare: as stored before, command 0 (shell, 2 s) running as `command`
    const pool = poolWith({ timeout_config: { timeout_policy: 'per_command', command_timeouts: { shell: 2 } } });
    const started = call(claimed(pool), pool, 0, { type: 'command_start', index: 0, commandType: 'shell' }).state;
    const first = started.run?.commands?.[0];
    if (!started.run || !first) throw new Error('command 0 did not start');
    const { commands: _now, ...run } = started.run;
    const legacy = { ...started, run: { ...run, command: first } };
    // Act
    const next = call(legacy, pool, 1, { type: 'command_start', index: 1, commandType: 'shell' }).state;
    const { effects } = wake(next, pool, 2);
    // Assess
    expect(next.run).not.toHaveProperty('command');
    expect(next.run?.commands?.map((command) => command.index)).toEqual([0, 1]);
    expect(eventOf(effects, 'TimeoutOccurred')).toMatchObject({ timeoutType: 'command', commandIndex: 0, elapsedSeconds: 2 });
  });

  it('a finished command no longer has a deadline', () => {
    // Prepare
    const pool = poolWith({ timeout_config: { timeout_policy: 'per_command', command_timeouts: { shell: 2 } } });
    let item = call(claimed(pool), pool, 0, { type: 'command_start', index: 0, commandType: 'shell' }).state;
    item = call(item, pool, 1, { type: 'command_finish', index: 0, outcome: 'succeeded' }).state;
    // Act
    const { effects } = wake(item, pool, 3);
    // Assess
    expect(eventTypes(effects)).not.toContain('TimeoutOccurred');
  });
});

describe('grace period and the item fate by timeout_action', () => {
  const timedOutItem = (action: 'dlq' | 'skip' | 'fail' | 'graceful_terminate' | 'retry', escalation = 3) => {
    const pool = poolWith({ agent_timeout_secs: 10, timeout_escalation: escalation, timeout_config: { timeout_action: action, cleanup_grace_period_secs: 5 } });
    return { pool, item: wake(claimed(pool), pool, 10).state };
  };

  it('terminated within the grace period resolves graceful; the item lands in the DLQ with its partial result', () => {
    // Prepare
    const { pool, item } = timedOutItem('dlq');
    // Act
    const { state, effects } = call(item, pool, 12, { type: 'terminated', cleanup: 'completed', partialResult: { done: 3 } });
    // Assess
    expect(state.state).toBe('dlq');
    expect(state.partialResult).toEqual({ done: 3 });
    expect(state.history[0]).toMatchObject({ outcome: 'timed_out', resolution: 'graceful', timeout: { type: 'agent', limitSeconds: 10 } });
    expect(eventOf(effects, 'TimeoutResolved')).toMatchObject({ resolution: 'graceful', cleanup: 'completed', itemState: 'dlq' });
    expect(eventTypes(effects)).toContain('ItemDeadLettered');
    expect(state.run).toBeUndefined();
    expect(state.pending).toEqual([{ type: 'check_pool_finished' }]);
  });

  it('silence resolves force at the end of the grace period, never before', () => {
    // Prepare
    const { pool, item } = timedOutItem('graceful_terminate');
    // Act
    const early = wake(item, pool, 14.9);
    const { state, effects } = wake(item, pool, 15);
    // Assess
    expect(early.state).toBe(item);
    expect(state.state).toBe('dlq');
    expect(state.history[0]?.resolution).toBe('force');
    expect(eventOf(effects, 'TimeoutResolved')).toMatchObject({ resolution: 'force' });
  });

  it('skip skips, retry returns the item to the pool, and neither applies before the attempt resolves', () => {
    // Prepare
    const skip = timedOutItem('skip');
    const retry = timedOutItem('retry');
    // Act
    const skipped = wake(skip.item, skip.pool, 15).state;
    const retried = wake(retry.item, retry.pool, 15).state;
    // Assess
    expect(skip.item.state).toBe('running');
    expect(skipped.state).toBe('skipped');
    expect(skipped.timeoutCount).toBe(0);
    expect(retried).toMatchObject({ state: 'available', reason: 'agent_timeout', timeoutCount: 1 });
  });

  it('fail fails the pool at the timeout itself; the item is failed when the attempt resolves', () => {
    // Prepare
    const { pool, item } = timedOutItem('fail');
    // Act
    const resolved = wake(item, pool, 15).state;
    // Assess
    expect(item.pending).toEqual([{ type: 'fail_pool', reason: 'item i-1 timed out (timeout_action: fail)' }]);
    expect(item.timeoutCount).toBe(0);
    expect(resolved.state).toBe('failed');
  });

  it('a complete during the grace period is refused with attempt_terminating and kept as a late result', () => {
    // Prepare
    const { pool, item } = timedOutItem('dlq');
    // Act
    const decision = call(item, pool, 11, { type: 'complete', outcome: 'succeeded', result: { late: true } });
    // Assess
    expect(decision.refusal).toBeInstanceOf(AttemptTerminatingError);
    expect(decision.state.state).toBe('running');
    expect(decision.state.history[0]?.lateResults).toEqual([{ at: at(11), call: 'complete', result: { outcome: 'succeeded', result: { late: true } } }]);
  });

  it('a completion that arrives after the deadline loses to the timeout, even before the timer fired', () => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 10 });
    const item = claimed(pool);
    // Act
    const inTime = call(item, pool, 9.999, { type: 'complete', outcome: 'succeeded' });
    const late = call(item, pool, 10, { type: 'complete', outcome: 'succeeded' });
    // Assess
    expect(inTime.state.state).toBe('succeeded');
    expect(eventTypes(inTime.effects)).toEqual(['AgentCompleted']);
    expect(late.refusal).toBeInstanceOf(AttemptTerminatingError);
    expect(eventTypes(late.effects)).toContain('TimeoutOccurred');
  });
});

describe('the attempt fence', () => {
  it('a call from an older attempt is refused with stale_attempt, recorded in that attempt’s history, never applied', () => {
    // Prepare: attempt 1 stalls out (retry), attempt 2 claims
    const pool = poolWith({ agent_timeout_secs: 10, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } });
    const first = wake(claimed(pool), pool, 10).state;
    const second = claimed(pool, first, 11, 'agent-b');
    // Act
    const stale = call(second, pool, 12, { type: 'complete', outcome: 'succeeded', result: { from: 'attempt 1' } }, 1);
    const heartbeat = call(second, pool, 12, { type: 'heartbeat' }, 1);
    // Assess
    expect(stale.refusal).toBeInstanceOf(StaleAttemptError);
    expect(stale.state.state).toBe('running');
    expect(stale.state.result).toBeUndefined();
    expect(stale.state.history.find((entry) => entry.attempt === 1)?.lateResults?.[0]).toMatchObject({ call: 'complete' });
    expect(heartbeat.refusal).toBeInstanceOf(StaleAttemptError);
    expect(heartbeat.state).toBe(second);
  });

  it('the latest attempt’s heartbeat keeps answering terminate after it is over', () => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 } });
    const over = wake(claimed(pool), pool, 10).state;
    // Act
    const { reply, refusal } = call(over, pool, 30, { type: 'heartbeat' });
    // Assess
    expect(over.state).toBe('dlq');
    expect(refusal).toBeUndefined();
    expect(reply).toMatchObject({ action: 'terminate' });
  });

  it('late results are bounded per attempt and large ones kept as their size only', () => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 } });
    let item = wake(claimed(pool), pool, 10).state;
    // Act
    for (let i = 0; i < 5; i++) item = call(item, pool, 11 + i, { type: 'complete', outcome: 'succeeded', result: { blob: 'x'.repeat(2_000) } }).state;
    // Assess
    const entry = item.history[0];
    expect(entry?.lateResults).toHaveLength(3);
    expect(entry?.lateResultsDropped).toBe(2);
    expect(entry?.lateResults?.[0]?.result).toBeUndefined();
    expect(entry?.lateResults?.[0]?.resultBytes).toBeGreaterThan(2_000);
  });

  it('a late result of an attempt whose entry already left the bounded history is counted on the item, not lost silently', () => {
    // Prepare: the first attempt's entry is gone (history holds the last few attempts only)
    const pool = poolWith({ agent_timeout_secs: 10 });
    const item = { ...claimed(pool), historyDropped: 1 };
    const withoutFirst = { ...item, attempt: 2, history: [] };
    // Act
    const { state, refusal } = call(withoutFirst, pool, 1, { type: 'complete', outcome: 'succeeded', result: { late: true } }, 1);
    // Assess
    expect(refusal).toBeInstanceOf(StaleAttemptError);
    expect(state.lateResultsDropped).toBe(1);
    expect(state.result).toBeUndefined();
  });

  it('timeouts of command types an agent keeps inventing are counted, past a few names together, so the item stays bounded', () => {
    // Prepare
    let stats = newItemStats();
    // Act: 100 attempts, each timing out in a command type of its own
    for (let i = 0; i < 100; i++) {
      stats = withTimeoutStat(stats, at(i), i + 1, 'liar', { type: 'command', commandIndex: 0, commandType: `type-${i}`, limitSeconds: 1, elapsedSeconds: 1 });
    }
    // Assess
    const counted = stats.timeoutsByType.command;
    expect(Object.keys(counted)).toHaveLength(ITEM_BOUNDS.commandTypesCounted + 1);
    expect(counted[OTHER_COMMAND_TYPES]).toBe(100 - ITEM_BOUNDS.commandTypesCounted);
    expect(Object.values(counted).reduce((sum, n) => sum + n, 0)).toBe(100);
  });
});
