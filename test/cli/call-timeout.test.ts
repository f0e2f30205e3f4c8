import { describe, expect, it } from 'vitest';
import { useFakeVigil } from '../support/fake-vigil.js';
import { runVigil } from '../support/vigil-cli.js';

/**
 * A `vigil status` against a Vigil that accepted the connection and never answered (a hung Lambda,
 * an overloaded manager) took ~52 s to say so: five 10 s tries and the waits between them. A command
 * that answers at once now gives up after `--call-timeout` (default 15 s), retries included, and
 * says what happened and what to do.
 */
describe('vigil: a command against a Vigil that never answers', () => {
  const vigil = useFakeVigil();

  it('exits 4 within its --call-timeout, naming the call, the wait, its tries and what to do', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(() => 'hang');
    // Act: killed at 20 s, far below the 52 s without a budget
    const result = await runVigil(['status', 'j1', '--endpoint', fake.url, '--call-timeout', '0.3'], { timeoutMs: 20_000 });
    const exitedAt = Date.now();
    // Assess
    expect(result.code, result.transcript).toBe(4);
    expect(result.stderr).toMatch(new RegExp(`^Vigil at ${fake.url} did not answer GET /jobs/j1 within 0\\.3 s \\((1 try|\\d tries, the last): no answer within [\\d.]+ s\\)\\. Is it running\\? If it is only slow, pass --call-timeout S to wait longer\\.\\n$`));
    // Assess: from its first try to its exit, the budget and a loaded machine's process exit
    const firstTryAt = fake.seen[0]?.at ?? 0;
    expect(fake.seen.length).toBeGreaterThanOrEqual(1);
    expect(exitedAt - firstTryAt, result.transcript).toBeLessThan(300 + 2_000);
  });

  it('a --call-timeout that is not seconds > 0 is bad usage; the long-running commands take none', async () => {
    // Act
    const [zero, runner] = await Promise.all([
      runVigil(['status', 'j1', '--endpoint', 'http://127.0.0.1:9', '--call-timeout', '0']),
      runVigil(['run', '--pool', 'p', '--agent', 'a', '--endpoint', 'http://127.0.0.1:9', '--call-timeout', '5', '--', 'true']),
    ]);
    // Assess
    expect(zero.code, zero.transcript).toBe(2);
    expect(zero.stderr).toContain("--call-timeout must be a number of seconds > 0 and ≤ 31536000 (one year), not '0'.");
    expect(runner.code, runner.transcript).toBe(2);
    expect(runner.stderr).toContain("Unknown option '--call-timeout'");
  });
});
