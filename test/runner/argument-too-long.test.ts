import { describe, expect, it, vi } from 'vitest';
import { countCalls, errorReply, iso, useFakeVigil, type Route } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes, real spawns.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: a pool's template step has `${item}` filled in, and the item is large (inputs may be
 * 32 KB): a `claude:` step naming `${item}` five times is one argument past Linux's 128 KiB per
 * argument (MAX_ARG_STRLEN); a `shell:` step naming it 80 times is 80 arguments past the 2 MiB the
 * whole command line may take (ARG_MAX). spawn then fails with E2BIG, which the runner reported like
 * a command that was not found (exit 127); here the runner died of it, leaving the item claimed. An
 * item whose text holds a NUL, which no argument can carry, did the same.
 *
 * Correct behaviour: the item is reported failed with the reason (what is too big, the limit, how to
 * fix it: `${item.<field>}`, or the input from $VIGIL_ITEM_INPUT), a command whose start was
 * reported is reported finished (failed), and the runner exits 1 (an item failed), not as if Vigil
 * or its usage were wrong.
 */
describe('vigil run on a template step whose filled-in item is too big for a command line', () => {
  const vigil = useFakeVigil();
  const bigText = 'x'.repeat(32_000);

  const poolWithStep = (step: Record<string, string>, type: string, input: unknown): Route => (method, path, _body, seen) => {
    if (method === 'GET' && path === '/pools/pool-1') return { status: 200, body: { poolId: 'pool-1', status: 'RUNNING', config: { agent_template: [step] } } };
    if (path.endsWith('/claims')) {
      if (seen.filter((s) => s.path.endsWith('/claims')).length > 1) return { status: 204 };
      const commands = [{ index: 0, type, limitSeconds: 60 }];
      return { status: 200, body: { itemId: 'item-1', attempt: 1, token: 'tok-1', input, deadlineAt: iso(Date.now() + 60_000), commands, checkpointIntervalSeconds: 300, lastCheckpoint: null } };
    }
    if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
    if (path.includes('/commands/') && path.endsWith('/start')) return { status: 200, body: { deadlineAt: iso(Date.now() + 60_000) } };
    if (path.endsWith('/finish') || path.endsWith('/complete')) return { status: 200, body: {} };
    return errorReply(404, 'route_not_found', 'no');
  };

  it.each([
    ['one argument past 128 KiB (a claude step)', { claude: '${item} ${item} ${item} ${item} ${item}' }, 'claude', bigText, '131072'],
    ['the whole command line past ARG_MAX (a shell step)', { shell: `: ${'${item} '.repeat(80)}` }, 'shell', bigText, 'ARG_MAX'],
    ['an argument holding a NUL (a claude step)', { claude: '/analyze ${item}' }, 'claude', 'a\u0000b', 'NUL'],
  ])('%s: the item is failed with the reason, exit 1', async (_what, step, type, input, limitNamed) => {
    // Prepare
    const fake = await vigil.fakeVigil(poolWithStep(step, type, input));
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.5', '--claude-cmd', 'true'], { timeoutMs: 45_000 });
    // Assess
    const calls = fake.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)?.slice(0, 300)}`).join('\n');
    // The runner's log may hold the item: its end says what happened.
    const context = `${result.transcript.slice(-4_000)}\ncalls:\n${calls}`;
    expect(result.code, context).toBe(1);
    expect(result.stderr, context).toContain(limitNamed);
    expect(result.stderr, context).toContain('${item.');
    expect(result.stderr, context).toContain('VIGIL_ITEM_INPUT');
    expect(result.stderr, context).not.toMatch(/\b127\b/);
    const finishes = fake.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/commands/0/finish'));
    expect(finishes, context).toHaveLength(countCalls(fake, 'POST', '/commands/0/start'));
    for (const finish of finishes) expect(finish.body, context).toMatchObject({ outcome: 'failed' });
    const completes = fake.seen.filter((s) => s.method === 'POST' && s.path.endsWith('/complete'));
    expect(completes, context).toHaveLength(1);
    expect(completes[0]?.body, context).toMatchObject({ outcome: 'failed', result: { error: { code: 'command_cannot_start' } } });
    expect(JSON.stringify(completes[0]?.body), context).toContain(limitNamed);
  });
});
