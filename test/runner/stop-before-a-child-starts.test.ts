import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

// Real processes and grace periods.
vi.setConfig({ testTimeout: 60_000 });

// Review finding: a Ctrl-C while the runner waited for Vigil's answer to a command's start (or to a
// workflow's first report) let it start the child anyway. That child was in no group when the stop's
// SIGTERM went out, and the runner took it as already told: it ran the whole grace period unasked and
// was then SIGKILLed, its cleanup never given a chance.
describe('vigil run: told to stop while Vigil answers the call before a child, it starts no child', () => {
  const vigil = useFakeVigil();

  it("--pool: a Ctrl-C while a command's start is in flight starts no child and gives the item back (cleanup completed)", async () => {
    // Prepare: the pool knows the item's one command; Vigil takes 1.5 s to answer its start
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) {
        if (seen.filter((s) => s.path.endsWith('/claims')).length > 1) return { status: 204 };
        const claimed = claimedReply('item-1', Date.now() + 120_000);
        return { ...claimed, body: { ...claimed.body, commands: [{ index: 0, type: 'shell', limitSeconds: 60 }] } };
      }
      if (path.endsWith('/commands/0/start')) return { status: 200, body: { deadlineAt: iso(Date.now() + 60_000) }, delayMs: 1_500 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });
    const pidFile = join(vigil.scratch(), 'pool-started-after-stop.pid');
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '3', '--heartbeat', '0.5', '--', 'sh', '-c', `echo $$ > ${pidFile}; sleep 30`]);
    await pollUntil(async () => (fake.seen.some((s) => s.path.endsWith('/commands/0/start')) ? true : undefined), { what: "the command's start", timeoutMs: 20_000, intervalMs: 20 });
    // Act
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess
    expect(existsSync(pidFile), `a child was started after the runner was told to stop\n${result.transcript}`).toBe(false);
    const terminated = fake.seen.filter((s) => s.path.endsWith('/terminated')).map((s) => JSON.stringify(s.body));
    expect(terminated, result.transcript).toEqual([expect.stringContaining('"cleanup":"completed"')]);
  });

  it("--job: a Ctrl-C while the workflow's first report is in flight starts no child", async () => {
    // Prepare: Vigil takes 1.5 s to answer the first report
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/progress')) {
        const first = seen.filter((s) => s.path.endsWith('/progress')).length === 1;
        return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 120_000) }, ...(first ? { delayMs: 1_500 } : {}) };
      }
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'failed', jobStatus: 'FAILED' } };
      return errorReply(403, 'forbidden', 'client route');
    });
    const pidFile = join(vigil.scratch(), 'job-started-after-stop.pid');
    const runner = vigil.startVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--stuck-threshold', '60', '--grace', '3', '--', 'sh', '-c', `echo $$ > ${pidFile}; sleep 30`]);
    await pollUntil(async () => (fake.seen.some((s) => s.path.endsWith('/progress')) ? true : undefined), { what: 'the first report', timeoutMs: 20_000, intervalMs: 20 });
    // Act
    runner.child.kill('SIGINT');
    const result = await runner.done;
    // Assess: stopped unfinished, the workflow is reported failed, as when the stop ends a running child
    expect(existsSync(pidFile), `a child was started after the runner was told to stop\n${result.transcript}`).toBe(false);
    expect(countCalls(fake, 'POST', '/complete'), result.transcript).toBe(1);
  });
});
