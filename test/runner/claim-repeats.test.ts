import { describe, expect, it } from 'vitest';
import { claim } from '../../shared/sdk/index.js';
import { claimedReply, errorReply, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Review findings: `vigil run` repeated a lost claim with a new claimId, the SDK gave up on `busy` long
// before Vigil's 30 s, and a repeat answered stale_attempt ended the run with an error.
describe('a lost claim is repeated with its claimId until it is answered (SDK and vigil run)', () => {
  const vigil = useFakeVigil();

  it('vigil run repeats a claim whose answer was lost with the same claimId, also after the SDK gave up', async () => {
    // Prepare: the first 5 claim requests (the SDK's try and its 4 retries) get 504s; then the pool is empty (204)
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        return n <= 5 ? { status: 504, text: '{"message": "Endpoint request timed out"}' } : { status: 204 };
      }
      return errorReply(404, 'route_not_found', 'no such route');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--', 'true'], { timeoutMs: 60_000 });
    // Assess: every repeat of the one lost claim names one claimId (docs/agent-fleets.md: "`vigil run` … repeat it on every retry")
    const claimIds = fake.seen.filter((s) => s.path.endsWith('/claims')).map((s) => (s.body as { claimId?: string }).claimId);
    expect(claimIds.length, result.transcript).toBeGreaterThan(5);
    expect(new Set(claimIds).size, `${result.transcript}\nclaimIds ${JSON.stringify(claimIds)}`).toBe(1);
  }, 90_000);

  it('claim() keeps repeating a claim answered 503 busy until the first request is answered', async () => {
    // Prepare: the first request is slower than the client's timeout; Vigil answers its repeats `busy`
    // (up to 30 s, ABANDONED_AFTER_MS) until it names the item, then the repeat gets item-1
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        if (n === 1) return 'hang';
        if (n <= 6) return errorReply(503, 'busy', "A claim with this claimId is still being answered. Retry in a moment with the same claimId to get its item.");
        return claimedReply('item-1', Date.now() + 60_000);
      }
      return { status: 200, body: { action: 'continue', deadlineAt: null } };
    });
    // Act
    const attempt = await claim({ endpoint: fake.url, requestTimeoutMs: 200, heartbeatIntervalMs: 60_000 }, 'pool-1', 'agent-a').catch((error: Error) => error);
    if (attempt && !(attempt instanceof Error)) attempt.stop();
    // Assess: the item the first request took is the one the agent gets
    expect(attempt instanceof Error ? attempt.message : attempt?.claim.itemId).toBe('item-1');
  }, 30_000);

  it('vigil run claims again with a new claimId when a repeated claim answers stale_attempt (the attempt it took ended)', async () => {
    // Prepare: the first claim's answer is lost; its repeat finds the attempt over (409 stale_attempt); a fresh claim finds nothing
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'POST' && path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        if (n === 1) return { status: 504, text: '{"message": "Endpoint request timed out"}' };
        if (n === 2) return errorReply(409, 'stale_attempt', "Claim 'x' took attempt 1 of item 'i', and that attempt is over. Claim again with a new claimId.");
        return { status: 204 };
      }
      return errorReply(404, 'route_not_found', 'no such route');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--', 'true'], { timeoutMs: 60_000 });
    // Assess: the runner claims again (docs: "claim again with a new id") and ends normally when the pool is empty
    const claimIds = fake.seen.filter((s) => s.path.endsWith('/claims')).map((s) => (s.body as { claimId?: string }).claimId);
    expect(claimIds.length, result.transcript).toBe(3);
    expect(claimIds[2], result.transcript).not.toBe(claimIds[0]);
    expect(result.code, result.transcript).toBe(0);
  }, 90_000);
});
