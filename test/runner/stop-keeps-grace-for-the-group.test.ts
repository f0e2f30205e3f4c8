import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

// Real processes and grace periods.
vi.setConfig({ testTimeout: 60_000 });

// Review finding: told to stop (Ctrl-C), the runner sends its children's groups SIGTERM. A leader
// that dies of it at once (a shell running the real work as its child) was seen to exit, and the
// runner SIGKILLed what was left of its group on the spot: the process doing the work never got the
// grace period to clean up, and the item was reported terminated with cleanup "completed".
describe("vigil run told to stop: the whole group gets the grace period, not only the group's leader", () => {
  const vigil = useFakeVigil();

  it('a grandchild that cleans up on SIGTERM finishes its cleanup after its leader died of the SIGTERM', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 120_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });
    const scratch = vigil.scratch();
    const pidFile = join(scratch, 'worker.pid');
    const cleaned = join(scratch, 'cleaned');
    // The leader (a shell waiting for its worker) dies of SIGTERM; the worker takes 1 s to clean up
    const worker = `trap 'sleep 1; echo yes > ${cleaned}; exit 0' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`;
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '5', '--heartbeat', '0.5', '--', 'sh', '-c', `sh -c "${worker}" & wait`]);
    await vigil.childPid(pidFile);
    // Act
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess
    const done = await pollUntil(async () => (existsSync(cleaned) ? true : undefined), { what: 'the cleanup', timeoutMs: 3_000, intervalMs: 50 }).catch(() => false);
    expect(done, `the worker was killed before it cleaned up\n${result.transcript}`).toBe(true);
    const terminated = fake.seen.filter((s) => s.path.endsWith('/terminated')).map((s) => JSON.stringify(s.body));
    expect(terminated, result.transcript).toEqual([expect.stringContaining('"cleanup":"completed"')]);
  });
});
