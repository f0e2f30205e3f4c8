import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { processExists } from '../support/vigil-cli.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * A review finding. Scenario: `vigil run --pool P --agent A --grace 1 -- CMD` is running an item's child when the runner
 * itself dies without a chance to clean up (SIGKILL: the OOM killer, `kill -9`, a container stop past
 * its own grace). The child was started `detached` in its own process group, so nothing reaches it:
 * it runs on as an orphan for ever. Vigil times the attempt out and answers `terminate` to heartbeats
 * nobody sends; the item is claimed again and a second copy of the work runs beside the first.
 *
 * Contract ("The `vigil` command and the worker SDK — v2"): on terminate the runner SIGTERMs the
 * child's group, waits at most until terminateBy, then SIGKILLs what is left — every agent learns to
 * stop; README "The agent runner": "no orphans". Now each group has a guard (process-group.ts) that
 * holds a pipe from the runner and, when it ends, SIGTERMs the group and SIGKILLs it after the grace.
 */
describe('vigil run killed outright leaves no child running', () => {
  const vigil = useFakeVigil();

  /** One item with a deadline two minutes away; Vigil healthy. */
  const oneItem = () =>
    vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 120_000) : { status: 204 };
      if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(Date.now() + 120_000) } };
      return { status: 200, body: {} };
    });

  const goneWithin = (pid: number, timeoutMs: number) =>
    pollUntil(async () => (processExists(pid) ? undefined : true), { what: `child ${pid} to be stopped`, timeoutMs, intervalMs: 100 }).catch(() => false);

  it.each([
    ['a child that ends on SIGTERM', 'while :; do sleep 0.2; done'],
    ['a child that ignores SIGTERM (SIGKILL after the grace)', "trap '' TERM; while :; do sleep 0.2; done"],
  ])("%s: its process group is gone within the grace period (+ slack) after the runner is SIGKILLed", async (_name, loop) => {
    // Prepare
    const fake = await oneItem();
    const pidFile = join(vigil.scratch(), `orphan-${loop.length}.pid`);
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--grace', '1', '--heartbeat', '0.5', '--', 'sh', '-c', `echo $$ > ${pidFile}; ${loop}`]);
    const pid = await vigil.childPid(pidFile);
    // Act: the runner dies without running any handler
    runner.child.kill('SIGKILL');
    await runner.done;
    // Assess: the child (its group leader) is gone within the grace period plus generous slack
    const gone = await goneWithin(pid, 12_000);
    expect(gone, `child ${pid} still runs 12 s after its runner was killed (an orphan); its state: ${stateOf(pid)}; its guard: ${guardsOf(pid).join(', ') || 'none running'}`).toBe(true);
  });

  it("a group that ended is released: its guard exits while the runner runs on", async () => {
    // Prepare: --follow keeps the runner waiting for more items after this one
    const fake = await oneItem();
    const pidFile = join(vigil.scratch(), 'normal.pid');
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--follow', '--grace', '30', '--', 'sh', '-c', `echo $$ > ${pidFile}; sleep 0.5`]);
    const pid = await vigil.childPid(pidFile);
    expect(guardsOf(pid), 'the running group has its guard').toHaveLength(1);
    // Act: the child ends on its own
    expect(await goneWithin(pid, 10_000)).toBe(true);
    // Assess: the guard is gone, the runner (its pipe's other end) still runs
    const guardGone = await pollUntil(async () => (guardsOf(pid).length === 0 ? true : undefined), { what: `the guard of group ${pid} to exit`, timeoutMs: 10_000, intervalMs: 100 }).catch(() => false);
    expect(guardGone, `guard still running: ${guardsOf(pid).join(', ')}`).toBe(true);
    expect(runner.child.exitCode).toBeNull();
    runner.child.kill('SIGKILL');
    await runner.done;
  });
});

/** The guard processes watching process group `pgid` (their command line names it). */
function guardsOf(pgid: number): string[] {
  const found = spawnSync('pgrep', ['-f', `vigil-group-guard ${pgid} `], { encoding: 'utf8' });
  return found.stdout.split('\n').filter(Boolean);
}

/** A process's state and parent as /proc tells them (`R 1`, `Z 1`, …), for a failure message. */
function stateOf(pid: number): string {
  const found = spawnSync('ps', ['-o', 'stat=,ppid=,pgid=,args=', '-p', String(pid)], { encoding: 'utf8' });
  return found.stdout.trim() || 'gone';
}
