import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { processExists } from '../support/vigil-cli.js';

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

// Review finding: a runner told to stop waited its own --grace for the child, even when Vigil then said
// `terminate` with an earlier terminateBy (the attempt timed out, the pool was cancelled): the child
// outlived terminateBy, past which Vigil may give the item to another agent.
describe("vigil run told to stop: Vigil's terminateBy still bounds the child", () => {
  const vigil = useFakeVigil();

  it('a terminate heard during the stop\'s grace period kills a child that ignores SIGTERM at terminateBy, not at the grace period\'s end', async () => {
    // Prepare: Vigil says continue until the runner's stop, then terminate with a terminateBy 1 s after the first such answer
    let terminateByMs: number | undefined;
    let stopped = false;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 120_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) {
        if (!stopped) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
        terminateByMs ??= Date.now() + 1_000;
        return { status: 200, body: { action: 'terminate', deadlineAt: iso(Date.now() + 120_000), terminateBy: iso(terminateByMs) } };
      }
      return { status: 200, body: {} };
    });
    const pidFile = join(vigil.scratch(), 'ignores-term.pid');
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '20', '--heartbeat', '0.2', '--', 'sh', '-c', `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    const pid = await vigil.childPid(pidFile);
    // Act
    stopped = true;
    runner.child.kill('SIGINT');
    // Assess: gone within a few seconds of terminateBy, far short of the 20 s grace period
    const gone = await pollUntil(async () => (processExists(pid) ? undefined : Date.now()), { what: 'the child to be killed', timeoutMs: 8_000, intervalMs: 50 }).catch(() => undefined);
    const result = await runner.done;
    expect(gone, `child still alive 8 s after the stop\n${result.transcript}`).toBeDefined();
    expect(countCalls(fake, 'POST', '/terminated'), result.transcript).toBe(1);
  });
});
