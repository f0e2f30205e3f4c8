import { describe, expect, it } from 'vitest';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getItem, getPool } from '../../../shared/app/pools/get-pool.js';
import { poolMetrics } from '../../../shared/app/pools/pool-metrics.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

const timerOf = (itemId: string, attempt: number, dueAt: number) => ({ scope: 'pool' as const, jobId: itemTimerId('p', itemId), fenceToken: attempt, dueAt });
const iso = (s: number) => new Date(at(s)).toISOString();

/**
 * Contract: under `timeout_action: fail` the pool is "FAILED at once when an item times out" and
 * "`fail` fails the pool at the timeout itself"; docs/agent-fleets.md: "neither an answer nor an
 * outcome depends on a timer being punctual". The item's timeout is applied at its due moment, but
 * the `fail_pool` follow-up fails the pool at `deps.clock.now()` (the moment the late wake-up ran),
 * so every other attempt whose deadline fell between the timeout and its detection is counted as a
 * timeout of its own and failed, where on-time timers would have stopped it with the pool.
 */
describe('timeout_action fail — the pool fails at the timeout, however late its wake-up (dynalite)', () => {
  const m = useTestManager();

  it('A times out at 10 s, found by a wake-up 30 s late: the pool FAILED at 10 s, and B (deadline 15 s) was stopped by it, not timed out', async () => {
    // Prepare: A claimed at 0 s (deadline 10 s), B at 5 s (deadline 15 s); grace 5 s
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { timeout_action: 'fail', cleanup_grace_period_secs: 5 } }, ['a', 'b']);
    const A = await claim(m.deps, 'agent-A');
    m.clock.set(at(5));
    const B = await claim(m.deps, 'agent-B');
    // Act: A's wake-up (due 10 s) arrives 30 s late (within the 70 s detection bound), then B's
    m.clock.set(at(40));
    await firePoolTimer(m.deps, timerOf(A.itemId, 1, at(10)));
    await firePoolTimer(m.deps, timerOf(B.itemId, 1, at(15)));
    // Assess: as with on-time timers, the pool failed at A's timeout, and B's 15 s deadline came after that
    const pool = await getPool(m.deps, 'p');
    const b = await getItem(m.deps, 'p', B.itemId);
    const metrics = await poolMetrics(m.deps, 'p');
    expect(pool.status).toBe('FAILED');
    expect(pool.finishedAt).toBe(iso(10));
    expect(b.history[0]).toMatchObject({ outcome: 'cancelled' });
    expect(metrics.timeoutsOccurred).toBe(1);
  });
});
