import { describe, expect, it } from 'vitest';
import { cancelPool } from '../../../shared/app/pools/cancel-pool.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { at } from '../../support/fixtures.js';
import { newPool } from './pool-test-support.js';
import { useTestManager } from '../support/test-manager.js';

/**
 * A review finding: "every agent learns to stop". The contract: a claim on a FAILED or CANCELLED pool answers
 * 409 `pool_finished`; a claim that raced the cancel is answered so (pool-races.test.ts). A repeat of
 * a claim (same claimId: its first answer was lost) that arrives after the cancel is the same call,
 * late: it must not hand the agent a live-looking attempt of a cancelled pool.
 */
describe('a claim repeated (same claimId) after its pool was cancelled (dynalite)', () => {
  const m = useTestManager();

  it('is answered 409 pool_finished, not the attempt', async () => {
    // Prepare: the first claim took the item, its answer was lost; the operator cancels
    await newPool(m.deps, { agent_timeout_secs: 600, timeout_config: { cleanup_grace_period_secs: 30 } });
    const first = await claimPoolItem(m.deps, 'p', { agentId: 'agent-a', kind: 'agent', claimId: 'c-1' });
    expect(first).toMatchObject({ itemId: 'i-1', attempt: 1 });
    m.clock.set(at(5));
    await cancelPool(m.deps, 'p', undefined);
    // Act: the SDK repeats the claim
    m.clock.set(at(6));
    const repeat = claimPoolItem(m.deps, 'p', { agentId: 'agent-a', kind: 'agent', claimId: 'c-1' });
    // Assess
    await expect(repeat).rejects.toMatchObject({ code: 'pool_finished' });
  });
});
