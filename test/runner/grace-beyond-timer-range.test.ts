import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, iso, useFakeVigil } from '../support/fake-vigil.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runVigil } from '../support/vigil-cli.js';

// A real runner and child process.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Proves that `vigil run --grace S`, told to stop, gives its child the grace period and reports what
 * it stopped also when S is longer than Node's setTimeout can wait (2^31 − 1 ms, about 24.8 days):
 * its backstop ("everything is killed a little later") fired after 1 ms, and the runner exited at
 * once without posting `terminated`, leaving the item running until its deadline.
 */
describe('vigil run with a --grace longer than setTimeout can wait', () => {
  const vigil = useFakeVigil();

  it('told to stop, it stops the child and gives the item back (terminated), not exits at once', async () => {
    // Prepare: one item; a child that ends on SIGTERM
    const fake = await vigil.fakeVigil((_method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 120_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });
    const pidFile = join(vigil.scratch(), 'long-grace.pid');
    // A 30-day grace period (2.592e9 ms)
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '2592000', '--heartbeat', '0.5', '--', 'sh', '-c', `echo $$ > ${pidFile}; sleep 30`]);
    await vigil.childPid(pidFile);
    // Act: one Ctrl-C
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess
    expect(countCalls(fake, 'POST', '/terminated'), result.transcript).toBe(1);
    expect(result.signal, result.transcript).toBeNull();
  });

  it.each(['1e300', '31536001', 'Infinity'])('a --grace of %s, beyond one year, is refused (exit 2) naming the flag and its range: nothing is claimed or started', async (grace) => {
    // Prepare
    const fake = await vigil.fakeVigil(() => ({ status: 204 }));
    const pidFile = join(vigil.scratch(), 'huge-grace.pid');
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--grace', grace, '--', 'sh', '-c', `echo $$ > ${pidFile}`]);
    // Assess
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr).toContain(`--grace must be a number of seconds ≥ 0 and ≤ 31536000 (one year), not '${grace}'`);
    expect(fake.seen, result.transcript).toEqual([]);
    expect(existsSync(pidFile), result.transcript).toBe(false);
  });
});
