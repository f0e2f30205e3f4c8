import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { claimedReply, countCalls, iso, useFakeVigil, type FakeVigilScope, type Route } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';
import { processExists } from '../support/vigil-cli.js';

// Real processes, and a deadline the SDK waits 5 s for Vigil's word about.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Scenario: Vigil accepts connections and never answers (or answers some routes only). The runner
 * decided its run (the child gone, the outcome answered or given up on), set its exit code, and then
 * stayed alive ~50 s: heartbeats, progress reports and asks still in flight (10 s per try, 4 retries)
 * kept Node's event loop going; a Ctrl-C even ended as exit 130 when the runner's last-resort kill
 * came first. A CI step or a supervisor waited for nothing.
 *
 * Correct behaviour: the command exits within moments of its outcome being known, with the exit code
 * and the stop cause it logs unchanged. The outcome itself is still sent until its deadline.
 */
describe('vigil run exits as soon as its run is decided, even while Vigil hangs', () => {
  const vigil = useFakeVigil();

  it('vigil run --job, every call after the first held: the deadline stops the child and the run exits 3 at once', async () => {
    // Prepare: the first report learns a deadline 1 s away; nothing after it is answered
    const fake = await vigil.fakeVigil((_method, _path, _body, seen) => (seen.length === 1 ? progressReply(1_000) : 'hang'));
    // Act
    const run = await runAndTimeChild(vigil, 'job-deadline', jobRun(fake.url, '--stuck-threshold', '120'), 'sleep 30');
    // Assess: within seconds of the child's end (it lingered ~47 s before)
    expect(run.transcript).toContain('job job-1: deadline passed and Vigil did not answer; SIGTERM to group');
    expect(run.code, run.transcript).toBe(3);
    expect(run.outlivedChildMs, run.transcript).toBeLessThan(PROMPTLY_MS);
  });

  it('vigil run --job, heartbeats held and the outcome answered: exits 0 at once, and logs no heartbeat abandoned by its stop as failed', async () => {
    // Prepare: a 1 s stuck threshold, so a heartbeat every 250 ms, each of them held
    const fake = await vigil.fakeVigil(holdingAllBut({ progress: 1, complete: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } }));
    // Act
    const run = await runAndTimeChild(vigil, 'job-beats-held', jobRun(fake.url, '--stuck-threshold', '1'), 'sleep 1');
    // Assess: it lingered ~51 s before
    expect(countCalls(fake, 'POST', '/progress'), 'a heartbeat was held').toBeGreaterThan(1);
    expect(run.code, run.transcript).toBe(0);
    expect(countCalls(fake, 'POST', '/complete'), run.transcript).toBe(1);
    expect(run.outlivedChildMs, run.transcript).toBeLessThan(PROMPTLY_MS);
    // Each beat unanswered by the next's time is a failure worth logging; one the run's own stop abandoned is not.
    expect(run.transcript).not.toMatch(/heartbeat failed.*was stopped/);
  });

  it('vigil run --pool --once, heartbeats held and complete answered: exits 0 at once', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(holdingAllBut({ claims: true, complete: {} }));
    // Act
    const run = await runAndTimeChild(vigil, 'pool-beats-held', poolRun(fake.url, '--once'), 'sleep 1');
    // Assess: it lingered ~51 s before
    expect(countCalls(fake, 'POST', '/heartbeat'), 'a heartbeat was held').toBeGreaterThan(0);
    expect(run.code, run.transcript).toBe(0);
    expect(countCalls(fake, 'POST', '/complete'), run.transcript).toBe(1);
    expect(run.outlivedChildMs, run.transcript).toBeLessThan(PROMPTLY_MS);
  });

  it('vigil run --pool, Ctrl-C with heartbeats held: the item is given back and the run exits 3 at once, not 130 at the last-resort kill', async () => {
    // Prepare
    const fake = await vigil.fakeVigil(holdingAllBut({ claims: true, terminated: {} }));
    // Act
    const run = await runAndTimeChild(vigil, 'pool-ctrl-c', poolRun(fake.url), 'sleep 30', async (runner) => {
      await pollUntil(async () => (countCalls(fake, 'POST', '/heartbeat') > 0 ? true : undefined), { what: 'a heartbeat held', timeoutMs: 10_000, intervalMs: 20 });
      runner.kill('SIGINT');
    });
    // Assess: before, the runner waited for its held calls until its own kill at grace + 15 s (exit 130)
    expect(run.transcript).toContain('item item-1: runner stopping; reporting terminated');
    expect(run.code, run.transcript).toBe(3);
    expect(fake.seen.filter((s) => s.path.endsWith('/terminated')).map((s) => (s.body as { cleanup?: string }).cleanup)).toEqual(['completed']);
    expect(run.outlivedChildMs, run.transcript).toBeLessThan(PROMPTLY_MS);
  });

  it('vigil run --pool --once, every call after the claim held: terminated is offered once, past its deadline for 5 s only, then exit 4', async () => {
    // Prepare: the attempt's deadline is 1 s away; nothing after the claim is answered
    const fake = await vigil.fakeVigil((method, path) => (path.endsWith('/claims') ? claimedReply('item-1', Date.now() + 1_000) : 'hang'));
    // Act
    const run = await runAndTimeChild(vigil, 'pool-deadline', poolRun(fake.url, '--once'), 'sleep 30');
    // Assess: the report past the deadline gets its last 5 s, not the SDK's ~50 s of retries
    expect(run.transcript).toContain('item item-1: deadline passed and Vigil did not answer; SIGTERM to group');
    expect(run.transcript).toContain('did not answer POST /pools/pool-1/items/item-1/terminated (given up at the deadline)');
    expect(run.code, run.transcript).toBe(4);
    expect(countCalls(fake, 'POST', '/terminated'), run.transcript).toBeGreaterThanOrEqual(1);
    expect(run.outlivedChildMs, run.transcript).toBeLessThan(LAST_CHANCE_MS + PROMPTLY_MS);
  });
});

/** How long the runner may outlive its child once the run is decided: loose for a loaded machine, far below the ~50 s it took. */
const PROMPTLY_MS = 5_000;
/** What a report of the outcome past its deadline is still given (ASK_AT_DEADLINE_MS). */
const LAST_CHANCE_MS = 5_000;

const progressReply = (deadlineInMs: number) => ({ status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + deadlineInMs) } });

/**
 * A Vigil that holds every call except the routes named: a route's answer is the body given (`claims`:
 * the first claim, then 204; `progress`: that many first reports, a minute's deadline), the rest hang.
 */
function holdingAllBut(answered: { claims?: boolean; progress?: number; complete?: object; terminated?: object }): Route {
  return (_method, path, _body, seen) => {
    const nth = seen.filter((s) => s.path === path).length;
    if (path.endsWith('/claims') && answered.claims) return nth === 1 ? claimedReply('item-1', Date.now() + 60_000) : { status: 204 };
    if (path.endsWith('/progress') && nth <= (answered.progress ?? 0)) return progressReply(60_000);
    if (path.endsWith('/complete') && answered.complete) return { status: 200, body: answered.complete };
    if (path.endsWith('/terminated') && answered.terminated) return { status: 200, body: answered.terminated };
    return 'hang';
  };
}

const jobRun = (endpoint: string, ...flags: string[]) => ['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', endpoint, '--grace', '1', ...flags];
const poolRun = (endpoint: string, ...flags: string[]) => ['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', endpoint, '--heartbeat', '0.3', '--grace', '1', ...flags];

/**
 * Runs `vigil ARGS… -- sh -c SCRIPT` (the child writes its pid first), `act` on the runner once the
 * child runs, and measures how long the runner outlived the child.
 */
async function runAndTimeChild(vigil: FakeVigilScope, name: string, args: string[], script: string, act?: (runner: { kill(signal: NodeJS.Signals): boolean }) => Promise<void>) {
  const pidFile = join(vigil.scratch(), `${name}.pid`);
  const runner = vigil.startVigil([...args, '--', 'sh', '-c', `echo $$ > ${pidFile}; ${script}`]);
  const exited = runner.done.then((result) => ({ ...result, atMs: Date.now() }));
  const pid = await vigil.childPid(pidFile);
  await act?.(runner.child);
  const childGoneAtMs = await pollUntil(async () => (processExists(pid) ? undefined : Date.now()), { what: `child ${pid} to end`, timeoutMs: 30_000, intervalMs: 20 });
  const { code, transcript, atMs } = await exited;
  return { code, transcript, outlivedChildMs: atMs - childGoneAtMs };
}
