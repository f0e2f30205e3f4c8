import { describe, expect, it, vi } from 'vitest';
import { claimedReply, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: the `vigil` command meets an error none of its commands expects (a bug, or the machine:
 * here `vigil run` cannot make the temporary folder it gives a child, TMPDIR naming no directory).
 * The error escaped main, and Node ended the process with its own exit code 1 and a stack trace,
 * and 1 is the contract's "the job/item failed": a script reads that no item of the pool failed
 * here, but the command did.
 *
 * Correct behaviour: the contract's codes are 0–4 only, so 2 (bad usage or bad input: a human
 * reads the message), with a message that says the command failed (what happened, and that it is
 * not the job's or item's outcome), not a bare stack.
 */
describe('the vigil command on an error it does not expect', () => {
  const vigil = useFakeVigil();

  it('exits 2 with a message that says so, not 1 (the job/item failed)', async () => {
    // Prepare: one item to claim, and a TMPDIR that does not exist
    const fake = await vigil.fakeVigil((_method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length > 1 ? { status: 204 } : claimedReply('item-1', Date.now() + 60_000);
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete') || path.endsWith('/terminated')) return { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.5', '--', 'true'], {
      env: { TMPDIR: '/nonexistent/vigil-review-tmp' },
      timeoutMs: 45_000,
    });
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toMatch(/^vigil: unexpected error/m);
    expect(result.stderr, result.transcript).toContain('/nonexistent/vigil-review-tmp');
    expect(result.stderr, result.transcript).toContain('not the outcome of any job or item');
  });
});
