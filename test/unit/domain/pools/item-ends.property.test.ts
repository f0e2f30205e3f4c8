import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import { call, claimed, eventOf, freshItem, poolWith, wake } from './pool-fixtures.js';

/** How an attempt ends when its agent means to keep the item from ever ending. */
type AttemptEnd = 'give_back' | 'time_out' | 'stall';

const LIMIT_SECONDS = 100;
const ESCALATION = 3;
// One attempt per 1,000 s; the grace period is 0 s, so every fate applies at once.
const pool = poolWith({
  agent_timeout_secs: LIMIT_SECONDS,
  timeout_escalation: ESCALATION,
  checkpoint_interval_secs: 10,
  checkpoint_timeout_secs: 2,
  stall_threshold: 1,
  timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 },
});

function endAttempt(item: PoolItem, end: AttemptEnd, start: number): PoolItem {
  if (end === 'give_back') return call(item, pool, start + 9, { type: 'terminated', cleanup: 'completed' }).state;
  if (end === 'stall') return wake(item, pool, start + 12).state;
  // Checkpoints answered on time, so only the deadline ends it.
  let current = item;
  for (let s = 10; s < LIMIT_SECONDS; s += 10) current = call(current, pool, start + s + 1, { type: 'checkpoint', state: { s } }).state;
  return wake(current, pool, start + LIMIT_SECONDS).state;
}

describe('no agent keeps a pool item from ending', () => {
  it('an item its agents give back, time out or stall on, in any order, is escalated within 3 × (timeout_escalation − 1) + 1 attempts', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<AttemptEnd>('give_back', 'time_out', 'stall'), { minLength: 3 * ESCALATION, maxLength: 3 * ESCALATION }), (ends) => {
        // Prepare
        let item = freshItem();
        let attempts = 0;
        // Act: each attempt ends the way the adversary chose, until no claim can take the item
        for (const end of ends) {
          if (item.state !== 'available') break;
          item = endAttempt(claimed(pool, item, 1_000 * attempts, `agent-${attempts}`), end, 1_000 * attempts);
          attempts++;
        }
        // Assess
        expect(item.state).toBe('escalated');
        expect(attempts).toBeLessThanOrEqual(3 * (ESCALATION - 1) + 1);
      }),
    );
  });

  it('the give-back that reaches timeout_escalation escalates with its own id and count; earlier ones return the item to the pool', () => {
    // Prepare
    let item = freshItem();
    const fates: Array<ReturnType<typeof call>> = [];
    // Act: three agents in turn stop on their own, unasked, before the deadline
    for (let n = 0; n < ESCALATION; n++) {
      const fate = call(claimed(pool, item, 1_000 * n, `agent-${n}`), pool, 1_000 * n + 9, { type: 'terminated', cleanup: 'completed', partialResult: { n } });
      fates.push(fate);
      item = fate.state;
    }
    // Assess
    expect(fates.slice(0, -1).map(({ state }) => [state.state, state.reason, state.returnCount])).toEqual([
      ['available', 'agent_terminated', 1],
      ['available', 'agent_terminated', 2],
    ]);
    expect(item).toMatchObject({ state: 'escalated', returnCount: 3, timeoutCount: 0, partialResult: { n: 2 }, escalation: { escalationId: 'p~i-1~r3', status: 'pending' } });
    expect(item.escalation?.question).toContain('given back unfinished 3 times');
    expect(eventOf(fates.at(-1)?.effects ?? [], 'TaskEscalated')).toMatchObject({ returnCount: 3, timeoutCount: 0 });
    expect(item.history.map((entry) => entry.outcome)).toEqual(['cancelled', 'cancelled', 'cancelled']);
  });
});
