import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --pool P --agent A -- CMD` where CMD does not exist (a typo, a missing PATH
 * entry). Today the runner claims an item, spawn fails silently (ENOENT becomes "exit 127" with no
 * message), the item is reported `failed`, and the runner goes on to claim — and fail — the next item,
 * and the next: one typo drains the whole pool into `failed`, and the output never says why.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): exit code 2 is "bad usage or bad input
 * (the message says how to fix it)"; a bad argument must change nothing. Correct behaviour: a command
 * that cannot be started is a usage error found before anything is claimed: exit 2, a message naming
 * the command, no claim, no item failed.
 */
describe('vigil run -- CMD where CMD cannot be started', () => {
  const vigil = useFakeVigil();

  it('exits 2 naming the command, and claims (and fails) no item of the pool', async () => {
    // Prepare: a pool with three items, each handed out on request
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        return n <= 3 ? claimedReply(`item-${n}`, Date.now() + 60_000) : { status: 204 };
      }
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    });
    const missing = '/nonexistent/vigil-review/no-such-agent';
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.5', '--', missing, '--flag'], { timeoutMs: 45_000 });
    // Assess
    const calls = fake.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`).join('\n');
    expect(countCalls(fake, 'POST', '/complete'), `items were failed by a command that never started\n${result.transcript}\ncalls:\n${calls}`).toBe(0);
    expect(countCalls(fake, 'POST', '/claims'), `${result.transcript}\ncalls:\n${calls}`).toBe(0);
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr).toContain(missing);
  });
});
