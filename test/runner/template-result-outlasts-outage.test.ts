import { describe, expect, it, vi } from 'vitest';
import { countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes and a real outage window.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: `vigil run --pool P --agent A --once` runs the pool's `agent_template` (one `shell:` step).
 * The step succeeds and writes its result; Vigil then has a brief outage (8 s of 503) just as the runner
 * reports the command's finish. The runner's own retries (4, ≤ ~3 s) give up on `commands/0/finish`,
 * the error escapes, and the run exits 4 without ever sending `complete`: the succeeded item's result is
 * lost, and the item later times out (counting toward DLQ / escalation).
 *
 * Contract/README ("The agent runner"): "An item's outcome (`complete` with its result, or `terminated`)
 * is sent again through an outage of Vigil until the attempt's deadline … so a brief outage loses no
 * result"; the runner reports "each command's start and finish". The test for `-- CMD` (no reported
 * command) passes today; with a template the finish report sits in front of `complete` and is not
 * resent. Correct behaviour: the finish (and then `complete`) is sent again until the attempt's
 * deadline; the result arrives and the run exits 0.
 */
describe('vigil run with a template: a succeeded step outlasts a brief outage of Vigil', () => {
  const vigil = useFakeVigil();

  it("the step's finish and the item's complete are sent again until answered; the result arrives and the run exits 0", async () => {
    // Prepare: the attempt's deadline is a minute away; the step's finish answers 503 for 8 s after its first try
    let firstFinish = 0;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'GET' && path === '/pools/pool-1') {
        return { status: 200, body: { poolId: 'pool-1', status: 'RUNNING', config: { agent_template: [{ shell: 'echo \'{"answer": 42}\' > "$VIGIL_RESULT_FILE"' }] } } };
      }
      if (path.endsWith('/claims')) {
        if (seen.filter((s) => s.path.endsWith('/claims')).length > 1) return { status: 204 };
        return {
          status: 200,
          body: { itemId: 'item-1', attempt: 1, token: 'tok', input: { n: 1 }, deadlineAt: iso(Date.now() + 60_000), commands: [{ index: 0, type: 'shell', limitSeconds: 60 }], checkpointIntervalSeconds: 300, lastCheckpoint: null },
        };
      }
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/commands/0/start')) return { status: 200, body: { deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/commands/0/finish')) {
        if (firstFinish === 0) firstFinish = Date.now();
        return Date.now() - firstFinish < 8_000 ? errorReply(503, 'upstream_unavailable', 'down') : { status: 200, body: {} };
      }
      if (path.endsWith('/complete')) return Date.now() - firstFinish < 8_000 ? errorReply(503, 'upstream_unavailable', 'down') : { status: 200, body: {} };
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '0.5'], { timeoutMs: 50_000 });
    // Assess: the result reached Vigil after the outage, and the run succeeded
    const calls = fake.seen.map((s) => `${s.method} ${s.path} ${JSON.stringify(s.body)}`).join('\n');
    const delivered = fake.seen.filter((s) => s.path.endsWith('/complete') && s.at - firstFinish >= 8_000);
    expect(delivered.map((s) => JSON.stringify(s.body)), `${result.transcript}\ncalls:\n${calls}`).toEqual([expect.stringContaining('"answer":42')]);
    expect(result.code, result.transcript).toBe(0);
    expect(countCalls(fake, 'POST', '/commands/0/start')).toBe(1);
  });
});
