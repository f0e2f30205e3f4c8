import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import type { Pool } from '../../../shared/domain/pools/pool.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send, type Claimed } from './pool-test-support.js';

/**
 * The real store, for a slow invocation: once the item was written, the next read of the pool (the
 * reopening's) or write of it first lets a competitor run to completion.
 */
class SlowPoolStore extends DynamoPoolStore {
  private competitor: { before: 'getPool' | 'savePool'; run: () => Promise<unknown> } | undefined;
  private itemSaved = false;

  beforeNext(before: 'getPool' | 'savePool', run: () => Promise<unknown>): void {
    this.competitor = { before, run };
  }

  private async letCompetitorRun(call: 'getPool' | 'savePool'): Promise<void> {
    const competitor = this.competitor;
    if (!this.itemSaved || competitor?.before !== call) return;
    this.competitor = undefined;
    await competitor.run();
  }

  override async saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem> {
    const saved = await super.saveItem(item, expectedVersion);
    this.itemSaved = true;
    return saved;
  }

  override async getPool(poolId: string): Promise<Pool | undefined> {
    await this.letCompetitorRun('getPool');
    return super.getPool(poolId);
  }

  override async savePool(pool: Pool, expectedVersion: number): Promise<Pool> {
    await this.letCompetitorRun('savePool');
    return super.savePool(pool, expectedVersion);
  }
}

// Review finding: a redrive (or an answer) writes the item first and reopens its pool after, as a
// follow-up. When that follow-up ran late (a slow invocation), the item could meanwhile be claimed and
// finished and the pool completed; the late reopening then turned the COMPLETED pool back to RUNNING
// with every item settled, and nothing ever completed it again (no PoolFinished until someone GETs it).
describe('pools on dynalite: a reopening that lands after the reopened item settled again', () => {
  const m = useTestManager();

  /** y dead-lettered after one timeout while x is still running. */
  async function yDeadLetteredWhileXRuns() {
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } }, ['i-1', 'i-2']);
    const y = await claim(m.deps, 'agent-a');
    m.clock.set(at(5));
    const x = await claim(m.deps, 'agent-b');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', y.itemId), fenceToken: y.attempt, dueAt: at(10) });
    expect((await m.deps.pools.getItem('p', y.itemId))?.state).toBe('dlq');
    return { x, y };
  }

  /** An agent takes y again and finishes it, and x finishes: the pool completes. */
  const finishBoth = (x: Claimed, y: Claimed) => async () => {
    const again = await claim(m.deps, 'agent-c');
    expect(again.itemId).toBe(y.itemId);
    await send(m.deps, again, { type: 'complete', outcome: 'succeeded' });
    await send(m.deps, x, { type: 'complete', outcome: 'succeeded' });
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
  };

  it('a reopening that comes after the work was done leaves the pool COMPLETED, finished once', async () => {
    // Prepare
    const { x, y } = await yDeadLetteredWhileXRuns();
    const slow = new SlowPoolStore(m.doc, m.tableName);
    slow.beforeNext('getPool', finishBoth(x, y));
    // Act: the redrive's reopening is slow; meanwhile the work is done
    await retryDeadLetter({ ...m.deps, pools: slow }, 'p', y.itemId, undefined);
    // Assess: every item settled, the pool COMPLETED (without anyone reading it), one PoolFinished
    expect((await m.deps.pools.getItem('p', y.itemId))?.state).toBe('succeeded');
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
    expect(m.bus.ofType('PoolFinished')).toHaveLength(1);
  });

  it('a reopening whose work is done between its read and its write completes the pool again', async () => {
    // Prepare
    const { x, y } = await yDeadLetteredWhileXRuns();
    const slow = new SlowPoolStore(m.doc, m.tableName);
    slow.beforeNext('savePool', finishBoth(x, y));
    // Act
    await retryDeadLetter({ ...m.deps, pools: slow }, 'p', y.itemId, undefined);
    // Assess: not left RUNNING with every item settled
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
  });
});
