import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Proves that `vigil run` makes the temporary folder it gives a child before it claims an item. It
 * made it after: with a TMPDIR that is no folder (or a full disk) the runner failed holding a claimed
 * item, which no agent could take until its deadline.
 *
 * Correct behaviour: the runner fails (exit 2, naming the folder) with nothing claimed.
 */
describe('vigil run that cannot make the folder it gives a child', () => {
  const vigil = useFakeVigil();

  it('fails before claiming anything', async () => {
    // Prepare: an item to claim, and a TMPDIR that does not exist
    const fake = await vigil.fakeVigil((_method, path) => {
      if (path.endsWith('/claims')) return claimedReply('item-1', Date.now() + 60_000);
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete') || path.endsWith('/terminated')) return { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--', 'true'], {
      env: { TMPDIR: '/nonexistent/vigil-tmp-before-claim' },
      timeoutMs: 45_000,
    });
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain('/nonexistent/vigil-tmp-before-claim');
    expect(countCalls(fake, 'POST', '/claims'), result.transcript).toBe(0);
  });
});
