import { describe, expect, it } from 'vitest';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import type { VigilError } from '../../../shared/domain/errors.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { toIso } from '../../../shared/domain/time.js';
import { errorResponse } from '../../../shared/http/error-response.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal } from './pool-test-support.js';

// Review finding: a retry sent again with another agentTimeoutSecs, after the first had taken the item
// out of the DLQ, answered 200 and kept the first limit: the caller was told its limit was set. A resend
// is answered as the first only when it asks for what the first did, as a pool's create is (409 for
// another body under the same id).
describe('pools on dynalite: a DLQ retry sent again', () => {
  const m = useTestManager();

  /** The pool's only item, dead-lettered after its agent timed out at `atSeconds`. */
  async function deadLetteredAt(atSeconds: number) {
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(atSeconds));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: agent.attempt, dueAt: at(atSeconds) });
    expect((await m.deps.pools.getItem('p', 'i-1'))?.state).toBe('dlq');
  }

  async function deadLettered() {
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } });
    await deadLetteredAt(10);
  }

  it('with another agentTimeoutSecs is refused with 409 retry_conflict naming the limit it has, and changes nothing', async () => {
    // Prepare
    await deadLettered();
    await retryDeadLetter(m.deps, 'p', 'i-1', 900);
    const before = await m.snapshot();
    // Act
    const refused = (await refusal(retryDeadLetter(m.deps, 'p', 'i-1', 1_200))) as VigilError;
    // Assess
    expect(errorResponse(refused).statusCode).toBe(409);
    expect(refused.code).toBe('retry_conflict');
    expect(refused.message).toContain('900');
    expect(refused.message).toContain('1200');
    expect(await m.snapshot()).toEqual(before);
  });

  it('with a limit after a retry that gave none is refused: the item keeps the pool’s limit', async () => {
    // Prepare
    await deadLettered();
    await retryDeadLetter(m.deps, 'p', 'i-1', undefined);
    // Act
    const refused = (await refusal(retryDeadLetter(m.deps, 'p', 'i-1', 10))) as VigilError;
    // Assess: 10 s is the pool's limit, but the resend asked for a limit of the item's own, which it does not have
    expect(refused.code).toBe('retry_conflict');
    expect((await m.deps.pools.getItem('p', 'i-1'))?.limitSeconds).toBeUndefined();
  });

  it('with the same agentTimeoutSecs, or none, is answered as the first', async () => {
    // Prepare
    await deadLettered();
    const first = await retryDeadLetter(m.deps, 'p', 'i-1', 900);
    // Act
    const same = await retryDeadLetter(m.deps, 'p', 'i-1', 900);
    const withoutLimit = await retryDeadLetter(m.deps, 'p', 'i-1', undefined);
    // Assess
    expect(first).toEqual({ itemId: 'i-1', state: 'available', limitSeconds: 900 });
    expect(same).toEqual(first);
    expect(withoutLimit).toEqual(first);
  });

  it('after a fresh failure, the item back in the DLQ is retried with a new limit', async () => {
    // Prepare: retried with 900 s, timed out again at 900 s: in the DLQ again
    await deadLettered();
    await retryDeadLetter(m.deps, 'p', 'i-1', 900);
    await deadLetteredAt(10 + 900);
    // Act
    const retried = await retryDeadLetter(m.deps, 'p', 'i-1', 1_200);
    const claimed = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    // Assess
    expect(retried).toEqual({ itemId: 'i-1', state: 'available', limitSeconds: 1_200 });
    expect(claimed?.deadlineAt).toBe(toIso(at(10 + 900 + 1_200)));
  });
});
