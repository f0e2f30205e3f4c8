import { describe, expect, it } from 'vitest';
import { claim, TerminateRequest, VigilUnreachableError } from '../../shared/sdk/index.js';
import { claimedReply, useFakeVigil } from '../support/fake-vigil.js';

/**
 * Scenario: an agent written against the SDK (`claim()` → `attempt.signal`) claims an item whose
 * deadline is a second away; then Vigil stops answering (every heartbeat hangs). The attempt's
 * `signal` fires only on a `terminate` answer or a 409, so it never fires: the agent works on past its
 * deadline for as long as the outage lasts, while Vigil times the attempt out and hands the item to
 * another agent (two agents on one item). The workflow SDK's signal fires at the deadline in the same
 * situation (`startWorkflow`, "the deadline passed while Vigil was unreachable"), and `vigil run`
 * enforces it with its own clock — only SDK agents are left without the bound.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): every worker and agent learns to stop; "If
 * Vigil becomes unreachable it still enforces the last deadlines it learned". Correct behaviour: the
 * attempt's signal fires (a TerminateRequest) once its last known deadline has passed and Vigil,
 * asked then, does not answer within a few seconds — as `startWorkflow` does.
 */
describe('the agent SDK when Vigil becomes unreachable', () => {
  const vigil = useFakeVigil();

  it("an attempt whose deadline passes while Vigil hangs is told to stop (its signal fires) within seconds", async () => {
    // Prepare: the claim's deadline is 1 s away; every later call hangs
    const deadline = Date.now() + 1_000;
    const fake = await vigil.fakeVigil((method, path) => (path.endsWith('/claims') ? claimedReply('item-1', deadline) : 'hang'));
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 500, retry: { retries: 0 }, requestTimeoutMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act
    const stoppedAt = await new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 15_000);
      attempt.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(Date.now())), { once: true });
    });
    attempt.stop();
    // Assess
    expect(stoppedAt, 'attempt.signal never fired although the deadline passed and Vigil did not answer').toBeDefined();
    expect((stoppedAt ?? 0) - deadline).toBeLessThan(12_000);
    // Why: not Vigil's terminate, but no answer (the runner logs it so)
    expect(attempt.signal.reason).toBeInstanceOf(TerminateRequest);
    expect((attempt.signal.reason as TerminateRequest).cause).toBeInstanceOf(VigilUnreachableError);
  }, 30_000);
});
