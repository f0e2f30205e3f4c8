import { describe, expect, it } from 'vitest';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

describe('timeout_action fail on dynalite: the pool fails at the timeout, not when its wake-up is applied', () => {
  const m = useTestManager();

  const fire = (itemId: string, attempt: number, dueAt: number) =>
    firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', itemId), fenceToken: attempt, dueAt });

  it('timeout_action fail: the pool FAILS at the timeout itself, however late the wake-up that applies it (no other item times out after it)', async () => {
    // Prepare: both agents get 50 s; the second claims 40 s later
    await newPool(m.deps, { agent_timeout_secs: 50, timeout_config: { timeout_action: 'fail', cleanup_grace_period_secs: 5 } }, ['i-1', 'i-2']);
    const first = await claim(m.deps, 'agent-a'); // deadline at 50
    m.clock.set(at(40));
    const second = await claim(m.deps, 'agent-b'); // deadline at 90
    // Act: both wake-ups are late (lost timers, found by a later sweep at 200): the first item's timeout (at 50) is applied at 200
    m.clock.set(at(200));
    await fire(first.itemId, first.attempt, at(50));
    const pool = await m.deps.pools.getPool('p');
    await fire(second.itemId, second.attempt, at(90));
    const other = await m.deps.pools.getItem('p', second.itemId);
    // Assess: the pool failed at 50; the other attempt (deadline 90) was told to terminate at 50, it did not time out at 90
    expect(pool?.status).toBe('FAILED');
    expect(pool?.finishedAt).toBe(at(50));
    expect(other?.history.at(-1)?.outcome).toBe('cancelled');
    expect(other?.stats.timeoutsByType.agent).toBe(0);
  });
});
