import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { runVigil } from '../support/vigil-cli.js';

// Real processes, grace periods and retries.
vi.setConfig({ testTimeout: 60_000 });

// Review findings: a Ctrl-C while a claim was in flight ran the item it then got and abandoned it; a
// child that ignored the stop's SIGTERM was killed with no `terminated`; the job runner stopped a
// child on a deadline Vigil had moved; a result met by a brief outage was lost.
describe('vigil run: an operator stop, a moved deadline and an outage lose no item and stop no healthy child', () => {
  const vigil = useFakeVigil();

  it('told to stop while a claim is in flight, it gives the item it then gets back (terminated) and starts no child', async () => {
    // Prepare: the claim's answer takes 1.5 s; the operator presses Ctrl-C meanwhile
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) {
        const n = seen.filter((s) => s.path.endsWith('/claims')).length;
        return n === 1 ? { ...claimedReply('item-1', Date.now() + 120_000), delayMs: 1_500 } : { status: 204 };
      }
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });
    const pidFile = join(vigil.scratch(), 'claimed-while-stopping.pid');
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '4', '--heartbeat', '0.5', '--', 'sh', '-c', `echo $$ > ${pidFile}; sleep 30`]);
    await pollUntil(async () => (fake.seen.some((s) => s.path.endsWith('/claims')) ? true : undefined), { what: 'the first claim', timeoutMs: 20_000, intervalMs: 20 });
    // Act
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess: README "The first Ctrl-C … claims nothing more: an item … is reported terminated, which puts it
    // back in the pool". The item Vigil handed over after the stop must be given back, not run and abandoned.
    const calls = fake.seen.map((s) => `${s.method} ${s.path}`).join('\n');
    expect(countCalls(fake, 'POST', '/terminated'), `${result.transcript}\ncalls:\n${calls}`).toBe(1);
    expect(existsSync(pidFile), `a child was started after the runner was told to stop\n${result.transcript}`).toBe(false);
  });

  it('told to stop, with a child that ignores SIGTERM, it kills the child at the grace period and gives the item back (cleanup failed)', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 120_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });
    const pidFile = join(vigil.scratch(), 'ignores-term.pid');
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '1', '--heartbeat', '0.5', '--', 'sh', '-c', `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    await vigil.childPid(pidFile);
    // Act: one Ctrl-C
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess: the child was SIGKILLed at the grace period; the item must still be handed back (cleanup failed),
    // else it stays `running` until its agent deadline and then counts as a timeout (toward DLQ/escalation)
    const terminated = fake.seen.filter((s) => s.path.endsWith('/terminated')).map((s) => JSON.stringify(s.body));
    expect(terminated, result.transcript).toEqual([expect.stringContaining('"cleanup":"failed"')]);
  });

  it('vigil run --job asks Vigil before stopping its child on a deadline its own clock saw pass: an extended job runs on', async () => {
    // Prepare: the first progress answer says the deadline is 1.5 s away; from then on Vigil answers the
    // extended deadline (another workflow of this worker was granted an extension: AD-26 extends every job of the worker)
    const firstDeadline = Date.now() + 1_500;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (method === 'GET') return errorReply(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) {
        const n = seen.filter((s) => s.path.endsWith('/progress')).length;
        return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(n === 1 ? firstDeadline : firstDeadline + 120_000) } };
      }
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act: the child needs 9 s; the stale deadline (+5 s slack) passes at ~6.5 s
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '1', '--', 'sh', '-c', 'sleep 9'], { timeoutMs: 40_000 });
    // Assess: Vigil is reachable and says RUNNING with a later deadline: the child must not be stopped
    expect(result.code, `${result.transcript}\ncalls: ${fake.seen.map((s) => `${s.method} ${s.path}`).join(', ')}`).toBe(0);
    expect(countCalls(fake, 'POST', '/complete')).toBe(1);
  });

  it('a succeeded item\'s result outlasts a brief outage of Vigil: complete is sent again until the attempt\'s deadline', async () => {
    // Prepare: Vigil is down (503) for every try of the first complete call (the SDK's try and its 4
    // retries, up to 3 s of back-off), then answers 200; the attempt's deadline is a minute away
    const TRIES_OF_ONE_CALL = 5;
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 60_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) {
        return seen.filter((s) => s.path.endsWith('/complete')).length <= TRIES_OF_ONE_CALL ? errorReply(503, 'upstream_unavailable', 'down') : { status: 200, body: {} };
      }
      return { status: 200, body: {} };
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '0.5', '--', 'sh', '-c', 'echo \'{"answer": 42}\' > "$VIGIL_RESULT_FILE"'], { timeoutMs: 50_000 });
    // Assess: the SDK's call gave up and the runner sent complete again; the result reached Vigil (nothing
    // accepted is lost) with what the child wrote, and the run succeeded
    const completes = fake.seen.filter((s) => s.path.endsWith('/complete'));
    expect(result.stderr, result.transcript).toContain('sending it again');
    expect(completes.length, result.transcript).toBe(TRIES_OF_ONE_CALL + 1);
    expect(completes.at(-1)?.body, result.transcript).toMatchObject({ outcome: 'succeeded', result: { answer: 42 } });
    expect(result.code, result.transcript).toBe(0);
  });
});
