import { describe, expect, it } from 'vitest';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import type { VigilError } from '../../../shared/domain/errors.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { errorResponse } from '../../../shared/http/error-response.js';
import { at } from '../../support/fixtures.js';
import { useTestManager, type TestManager } from '../support/test-manager.js';
import { claim, newPool, refusal } from './pool-test-support.js';

/** x claimed and timed out at `at(seconds)` (limit 10 s, no grace, escalated at its first timeout). */
async function escalate(m: TestManager, seconds: number): Promise<string> {
  const agent = await claim(m.deps, `agent-${seconds}`);
  m.clock.set(at(seconds));
  await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'x'), fenceToken: agent.attempt, dueAt: at(seconds) });
  return (await m.deps.pools.getItem('p', 'x'))?.escalation?.escalationId ?? '';
}

// contract: "unknown job, workflow or route → 404"; "a second answer → 409". An id is known when it is
// the item's current question or an earlier one of it (its pointer was written when it was asked).
describe('pools on dynalite: an answer to an escalation id', () => {
  const m = useTestManager();

  it('never issued (p~x~99, while x has only p~x~1, pending) is 404 escalation_not_found and changes nothing', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['x']);
    expect(await escalate(m, 10)).toBe('p~x~1');
    // Act: a typo in the id
    const refused = (await refusal(answerEscalation(m.deps, 'p~x~99', { option: 'skip' }))) as VigilError;
    // Assess
    expect({ code: refused.code, status: errorResponse(refused).statusCode, question: (await m.deps.pools.getItem('p', 'x'))?.escalation?.status }).toEqual({
      code: 'escalation_not_found',
      status: 404,
      question: 'pending',
    });
  });

  it('asked earlier and answered, while the item has a newer question pending, is 409 escalation_answered', async () => {
    // Prepare: p~x~1 answered (more time), then x timed out again and was asked anew
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['x']);
    const first = await escalate(m, 10);
    await answerEscalation(m.deps, first, { option: 'increase_timeout', timeoutSeconds: 20 });
    const second = await escalate(m, 40);
    expect(second).not.toBe(first);
    // Act
    const refused = (await refusal(answerEscalation(m.deps, first, { option: 'skip' }))) as VigilError;
    // Assess
    expect({ code: refused.code, current: (await m.deps.pools.getItem('p', 'x'))?.escalation }).toMatchObject({
      code: 'escalation_answered',
      current: { escalationId: second, status: 'pending' },
    });
  });
});
