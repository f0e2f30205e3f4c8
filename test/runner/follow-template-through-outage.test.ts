import { describe, expect, it, vi } from 'vitest';
import { errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --pool P --agent A --follow` with no `-- CMD` (the pool's template runs) is
 * started while Vigil is down (a fleet booting before Vigil, a restart). The runner reads the pool's
 * template once, before its first claim, and that read was not waited out: after one call's retries it
 * exited 4, though `--follow` keeps waiting "through an outage of Vigil too" (README, "The agent
 * runner"), and its claims do.
 *
 * Correct behaviour: with --follow the template's read is tried again until Vigil answers, then the
 * runner claims and runs items as usual.
 */
describe('vigil run --follow on a pool template while Vigil is down at the start', () => {
  const vigil = useFakeVigil();

  it('waits the outage out, then runs the template on the items it claims', async () => {
    // Prepare: the pool's first reads fail (503), more than one call's tries; then one item to claim
    let poolReads = 0;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'GET' && path === '/pools/pool-1') {
        poolReads++;
        if (poolReads <= 8) return errorReply(503, 'upstream_unavailable', 'down');
        return { status: 200, body: { poolId: 'pool-1', status: 'RUNNING', config: { agent_template: [{ shell: 'test "${item.n}" = 1' }] } } };
      }
      if (path.endsWith('/claims')) {
        if (seen.filter((s) => s.path.endsWith('/claims')).length > 1) return { status: 204 };
        const commands = [{ index: 0, type: 'shell', limitSeconds: 60 }];
        return { status: 200, body: { itemId: 'item-1', attempt: 1, token: 'tok-1', input: { n: 1 }, deadlineAt: iso(Date.now() + 60_000), commands, checkpointIntervalSeconds: 300, lastCheckpoint: null } };
      }
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.includes('/commands/') && path.endsWith('/start')) return { status: 200, body: { deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/finish') || path.endsWith('/complete')) return { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    });
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--follow', '--endpoint', fake.url, '--heartbeat', '0.5']);
    const exitedEarly = runner.done.then((end) => end);
    // Act: once the item is complete, the operator stops the runner
    const complete = await pollUntil(
      async () => {
        const posted = fake.seen.find((s) => s.method === 'POST' && s.path.endsWith('/items/item-1/complete'));
        if (posted) return posted;
        // Gave up on the outage: fail at once with its transcript.
        const ended = await Promise.race([exitedEarly, Promise.resolve(undefined)]);
        if (ended) throw new Error(`the runner exited during the outage:\n${ended.transcript}`);
        return undefined;
      },
      { what: () => `the item's complete; calls so far: ${fake.seen.map((s) => `${s.method} ${s.path}`).join(', ')}`, timeoutMs: 40_000 },
    );
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess
    expect(poolReads, result.transcript).toBeGreaterThan(8);
    expect(complete.body, result.transcript).toMatchObject({ outcome: 'succeeded' });
    expect(result.code, result.transcript).toBe(0);
  });
});
