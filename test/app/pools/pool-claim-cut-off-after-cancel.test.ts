import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import type { PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { newPool, refusal } from './pool-test-support.js';
import { useTestManager } from '../support/test-manager.js';

/**
 * The real store: the claim has read the pool RUNNING; just before its item write the operator's
 * cancel runs to completion (it wakes the running items: none yet); the claim's write lands and the
 * Lambda is cut off right after it, before `assertPoolStillRunning` wakes the attempt it took.
 */
class CancelThenCrashAfterTake extends DynamoPoolStore {
  competitor: (() => Promise<unknown>) | undefined;
  override async saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (competitor) await competitor();
    const saved = await super.saveItem(item, expectedVersion);
    if (competitor && item.state === 'running') throw new Error('the Lambda was cut off after taking the item');
    return saved;
  }
}

describe('a claim that raced a pool cancel and was cut off right after taking its item (a review finding) (dynalite)', () => {
  const m = useTestManager();

  it('the orphaned attempt is told to terminate within the pool-no-leak bound of the cancel (retry, then sweeps)', async () => {
    // Prepare: defaults for the checkpoint interval (300 s); a 600 s agent limit
    await newPool(m.deps, { agent_timeout_secs: 600 }, ['i-1']);
    const store = new CancelThenCrashAfterTake(m.doc, m.tableName);
    const cancelledAt = m.clock.now();
    store.competitor = () => cancelPool(m.deps, 'p', 'stop');
    const crash = await refusal(claimPoolItem({ ...m.deps, pools: store }, 'p', { agentId: 'agent-a', kind: 'agent', claimId: 'c-1' }));
    expect(crash).toMatchObject({ message: 'the Lambda was cut off after taking the item' });
    expect((await m.deps.pools.getPool('p'))?.status).toBe('CANCELLED');
    // Act: the SDK repeats the claim (same claimId) at once; then every minute's sweep up to the bound
    const repeat = await refusal(claimPoolItem(m.deps, 'p', { agentId: 'agent-a', kind: 'agent', claimId: 'c-1' }));
    expect(repeat).toMatchObject({ code: 'pool_finished' });
    for (let t = SWEEP_INTERVAL_MS; t <= DETECTION_BOUND_MS; t += SWEEP_INTERVAL_MS) {
      m.clock.set(cancelledAt + t);
      await sweepJobTimers(m.deps);
    }
    m.clock.set(cancelledAt + DETECTION_BOUND_MS);
    await sweepJobTimers(m.deps);
    // Assess: the attempt no agent knows of, in a cancelled pool, was told to stop at the repeat and ended within the bound
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.run, 'no attempt left running').toBeUndefined();
    const ended = item?.history.find((entry) => entry.claimId === 'c-1');
    expect(ended).toMatchObject({ outcome: 'cancelled' });
    expect(ended?.endedAt ?? Infinity).toBeLessThanOrEqual(cancelledAt + DETECTION_BOUND_MS);
  });
});
