import { describe, expect, it, vi } from 'vitest';
import { countCalls, errorReply, iso, useFakeVigil, type Route } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --pool P --agent A` on a pool whose `agent_template` has a `claude:` step,
 * with `--claude-cmd` naming a program this machine cannot start (a typo, or the default `claude -p`
 * where no `claude` is installed), or an empty one (`--claude-cmd "$UNSET"`, which ran the prompt
 * itself as the program). The runner claims an item, its claude step exits 127, the item is reported
 * failed, and it claims the next: one bad flag drains the pool into `failed`.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): `claude:` steps run "through the
 * executable named by `--claude-cmd`"; exit 2 is "bad usage or bad input (the message says how to fix
 * it)". `-- CMD` that cannot start is already exit 2 before any claim (command-not-found.test.ts).
 * Correct behaviour: the same for `--claude-cmd` when the template has a claude step.
 */
describe('vigil run on a template with a claude step whose --claude-cmd cannot be started', () => {
  const vigil = useFakeVigil();

  /** A pool whose template runs a claude step, then a shell step; three items handed out on request. */
  const templatePool: Route = (method, path, _body, seen) => {
    if (method === 'GET' && path === '/pools/pool-1') {
      return { status: 200, body: { poolId: 'pool-1', status: 'RUNNING', config: { agent_template: [{ claude: '/analyze ${item}' }, { shell: 'true' }] } } };
    }
    if (path.endsWith('/claims')) {
      const n = seen.filter((s) => s.path.endsWith('/claims')).length;
      if (n > 3) return { status: 204 };
      const commands = [
        { index: 0, type: 'claude', limitSeconds: 60 },
        { index: 1, type: 'shell', limitSeconds: 60 },
      ];
      return { status: 200, body: { itemId: `item-${n}`, attempt: 1, token: `tok-${n}`, input: { n }, deadlineAt: iso(Date.now() + 60_000), commands, checkpointIntervalSeconds: 300, lastCheckpoint: null } };
    }
    if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
    if (path.includes('/commands/') && path.endsWith('/start')) return { status: 200, body: { deadlineAt: iso(Date.now() + 60_000) } };
    if (path.endsWith('/finish') || path.endsWith('/complete')) return { status: 200, body: {} };
    return errorReply(404, 'route_not_found', 'no');
  };

  it.each([
    ['a missing program', '/nonexistent/vigil-review/claude -p', '/nonexistent/vigil-review/claude'],
    ['an empty value', '', '--claude-cmd'],
  ])('--claude-cmd naming %s: exit 2 naming it, no item claimed or failed', async (_what, claudeCmd, named) => {
    // Prepare
    const fake = await vigil.fakeVigil(templatePool);
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.5', '--claude-cmd', claudeCmd], { timeoutMs: 45_000 });
    // Assess
    const calls = fake.seen.map((s) => `${s.method} ${s.path}`).join('\n');
    expect(countCalls(fake, 'POST', '/complete'), `items were failed by a claude step that never started\n${result.transcript}\ncalls:\n${calls}`).toBe(0);
    expect(countCalls(fake, 'POST', '/claims'), `${result.transcript}\ncalls:\n${calls}`).toBe(0);
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr, result.transcript).toContain(named);
  });
});
