import { describe, expect, it } from 'vitest';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, cutOffAt, newPool, refusal } from './pool-test-support.js';

const READS = new Set(['GetCommand', 'QueryCommand', 'BatchGetCommand', 'ScanCommand']);

// Review finding: a claim on a COMPLETED pool read up to 32 index pages and 32 items before its 204
// whenever the index listed an item (a redrive whose reopening had not landed yet, or index lag), though
// no item of a pool that is not RUNNING can be claimed: every idle agent's poll paid 64 reads.
describe('pools on dynalite: a claim on a COMPLETED pool', () => {
  const m = useTestManager();

  /** The pool's only item dead-lettered (the pool COMPLETED), then redriven by a call cut off before it reopened the pool. */
  async function completedPoolHoldingARedrivenItem() {
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } });
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: agent.attempt, dueAt: at(10) });
    await refusal(retryDeadLetter({ ...m.deps, pools: cutOffAt(m.deps.pools, 'savePool') }, 'p', 'i-1', undefined));
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
    expect((await m.deps.pools.availableItemIds('p', 25))).toEqual(['i-1']);
  }

  it('is answered 204 from the pool read alone: no index page, no item read, no write', async () => {
    // Prepare
    await completedPoolHoldingARedrivenItem();
    m.calls.length = 0;
    // Act
    const claimed = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    const claimedWithId = await claimPoolItem(m.deps, 'p', { agentId: 'agent-c', kind: 'agent', claimId: 'c-1' });
    // Assess: each claim read the pool (and the second its receipt), nothing else
    expect(claimed).toBeUndefined();
    expect(claimedWithId).toBeUndefined();
    expect(m.calls.filter((call) => READS.has(call.command)).length).toBe(3);
    expect(m.calls.filter((call) => !READS.has(call.command))).toEqual([]);
  });

  it('once the redrive’s wake-up reopens the pool, the item is claimed', async () => {
    // Prepare
    await completedPoolHoldingARedrivenItem();
    const item = await m.deps.pools.getItem('p', 'i-1');
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: item?.attempt ?? 0, dueAt: item?.timerDueAt ?? 0 });
    // Act
    const claimed = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    // Assess
    expect((await getPool(m.deps, 'p')).status).toBe('RUNNING');
    expect(claimed).toMatchObject({ itemId: 'i-1', attempt: 2 });
  });
});
