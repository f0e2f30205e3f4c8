import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool } from './pool-test-support.js';

describe('the backstop sweep finds pool wake-ups (a lost timer, a crash)', () => {
  const m = useTestManager();

  it('fires an overdue attempt deadline that no timer delivered, and the grace end after it', async () => {
    // Prepare: nothing fires the armed timers (RecordingTimers); only the sweep can. Grace 20 s, so
    // the deadline's sweep comes within it
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 20 } });
    await claim(m.deps, 'agent-a');
    // Act
    m.clock.set(at(10) + SWEEP_GRACE_MS);
    const first = await sweepJobTimers(m.deps);
    // The grace period runs from the deadline, however late the sweep found it
    const terminating = await m.deps.pools.getItem('p', 'i-1');
    m.clock.set((terminating?.timerDueAt ?? 0) + SWEEP_GRACE_MS);
    const second = await sweepJobTimers(m.deps);
    // Assess
    expect(first.fired).toBe(1);
    expect(terminating?.timerDueAt).toBe(at(30));
    expect(second.fired).toBe(1);
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item).toMatchObject({ state: 'dlq', history: [{ outcome: 'timed_out', resolution: 'force', endedAt: at(30) }] });
    expect(item?.timerDueAt).toBeUndefined();
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
  });

  it('a sweep that finds a deadline and its grace period both passed settles the attempt in one pass, as if on time', async () => {
    // Prepare: grace 5 s; the first sweep comes after deadline + grace
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 5 } });
    await claim(m.deps, 'agent-a');
    // Act
    m.clock.set(at(16) + SWEEP_GRACE_MS);
    const swept = await sweepJobTimers(m.deps);
    // Assess
    expect(swept.fired).toBe(1);
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item).toMatchObject({ state: 'dlq', history: [{ outcome: 'timed_out', resolution: 'force', endedAt: at(15), timeout: { elapsedSeconds: 10 } }] });
  });

  it("an attempt deadline whose write is throttled once is tried again in the same sweep, not left for the next", async () => {
    // Prepare: grace 20 s; the item's next write fails with DynamoDB's throttling error (a hot item, after the SDK's attempts)
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 20 } });
    await claim(m.deps, 'agent-a');
    const pools = m.deps.pools;
    let throttled = false;
    m.deps.pools = Object.assign(Object.create(pools) as typeof pools, {
      saveItem: (item: Parameters<typeof pools.saveItem>[0], expectedVersion: number) => {
        if (throttled) return pools.saveItem(item, expectedVersion);
        throttled = true;
        return Promise.reject(new ProvisionedThroughputExceededException({ $metadata: {}, message: 'injected' }));
      },
    });
    // Act
    m.clock.set(at(10) + SWEEP_GRACE_MS);
    const swept = await sweepJobTimers(m.deps);
    // Assess: its grace period started in this sweep, as it would have without the throttle
    expect(throttled).toBe(true);
    expect(swept.fired).toBe(1);
    const item = await pools.getItem('p', 'i-1');
    expect(item?.timerDueAt).toBe(at(30));
    expect(item).not.toHaveProperty('timerFailures');
  });
});
