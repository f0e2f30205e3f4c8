import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import type { Pool } from '../../../shared/domain/pools/pool.js';
import { at } from '../../support/fixtures.js';
import { claim, newPool, refusal, send } from './pool-test-support.js';
import { useTestManager } from '../support/test-manager.js';

/** The real store; the write that completes the pool lands, then the Lambda is cut off (once). */
class CrashAfterPoolCompletes extends DynamoPoolStore {
  armed = true;
  override async savePool(pool: Pool, expectedVersion: number): Promise<Pool> {
    const saved = await super.savePool(pool, expectedVersion);
    if (this.armed && pool.status === 'COMPLETED') {
      this.armed = false;
      throw new Error('the Lambda was cut off after the pool completion was written');
    }
    return saved;
  }
}

// A review finding (crash after any write): the pool's completion is written with PoolFinished in the
// pool's outbox, and a pool has no wake-up of its own. Cut off right after that write, the item's
// repeated follow-up found the pool no longer RUNNING and returned: nothing ever published it.
describe('a crash right after the write that completes a pool (dynalite)', () => {
  const m = useTestManager();

  it('PoolFinished is still published, once: by the item follow-up the sweep repeats', async () => {
    // Prepare: one item; the agent completes it; the completion's check_pool_finished follow-up
    // writes COMPLETED, then the invocation is cut off before the outbox is published
    await newPool(m.deps, { agent_timeout_secs: 600 });
    const claimed = await claim(m.deps, 'agent-a');
    const crashing = new CrashAfterPoolCompletes(m.doc, m.tableName);
    m.clock.set(at(10));
    const crash = await refusal(send({ ...m.deps, pools: crashing }, claimed, { type: 'complete', outcome: 'succeeded' }));
    expect(crash).toMatchObject({ message: 'the Lambda was cut off after the pool completion was written' });
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
    // Act: the item's follow-up wake-up, found by the sweep
    for (const t of [45, 120]) {
      m.clock.set(at(t) + SWEEP_GRACE_MS);
      await sweepJobTimers(m.deps);
    }
    // Assess: the follow-up ran (nothing pending any more), and the decided PoolFinished reached the bus once
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.pending ?? []).toEqual([]);
    expect(item?.timerDueAt).toBeUndefined();
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
    expect((await m.deps.pools.getPool('p')) as { outbox?: unknown[] }).not.toHaveProperty('outbox.0');
    // An operator reading the pool later publishes nothing again
    await getPool(m.deps, 'p');
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
  });
});
