import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { useVigilProcess } from '../e2e/e2e-support.js';
import { claimedReply, countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';
import { PoolClient } from '../support/pool-client.js';
import { pollUntil } from '../support/poll.js';
import { processExists, runVigil } from '../support/vigil-cli.js';

// Each case waits on real processes and grace periods.
vi.setConfig({ testTimeout: 60_000 });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Review findings: a stale attempt or a job that ended as its child finished made the run exit 2
// (bad usage); a hanging Vigil held back the SIGKILL; a second Ctrl-C left a child running.
describe('vigil run: every agent learns to stop, and exits by the contract', () => {
  const vigil = useFakeVigil();

  it('a 409 stale_attempt stops the child, exits 3 (not 2) and keeps claiming', async () => {
    // Prepare: the attempt was superseded (force-resolved, item claimed again by another agent)
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/claims')) return seen.filter((s) => s.path.endsWith('/claims')).length === 1 ? claimedReply('item-1', Date.now() + 60_000) : { status: 204 };
      return errorReply(409, 'stale_attempt', 'Attempt 1 of item-1 is over; attempt 2 holds it.');
    });
    // Act
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--endpoint', fake.url, '--heartbeat', '0.2', '--grace', '1', '--', 'sh', '-c', 'sleep 30'], { timeoutMs: 45_000 });
    // Assess
    expect(countCalls(fake, 'POST', '/terminated'), result.transcript).toBe(1);
    expect(result.code, result.transcript).toBe(3);
    expect(countCalls(fake, 'POST', '/claims'), `it must go on to claim the next item\n${result.transcript}`).toBe(2);
  });

  it('vigil run --job: a child that finishes as the job ends (complete → 409 job_finished) exits 3, not 2', async () => {
    // Prepare: the job timed out between the last heartbeat and the child's exit
    const fake = await vigil.fakeVigil((method, path) => {
      if (method === 'GET') return errorReply(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return errorReply(409, 'job_finished', "Job 'job-1' is TIMED_OUT; it takes no more outcomes.");
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--', 'sh', '-c', 'sleep 0.5']);
    // Assess
    expect(countCalls(fake, 'POST', '/complete'), result.transcript).toBe(1);
    expect(result.code, result.transcript).toBe(3);
  });

  it('vigil run --job --stuck-threshold (an endpoint that cannot read the job, a region\'s WorkerUrl): no GET, a heartbeat a quarter threshold apart', async () => {
    // Prepare: a worker URL answers only the worker routes
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      return errorReply(404, 'route_not_found', 'no');
    });
    // Act: a 2 s threshold, so a heartbeat every 0.5 s, over a 3 s child
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--stuck-threshold', '2', '--', 'sh', '-c', 'sleep 3']);
    // Assess
    expect(result.code, result.transcript).toBe(0);
    expect(fake.seen.filter((s) => s.method === 'GET'), result.transcript).toEqual([]);
    expect(countCalls(fake, 'POST', '/progress'), result.transcript).toBeGreaterThanOrEqual(4);
  });

  it('vigil run --job --stuck-threshold that is not a positive number: exit 2 with how to fix it', async () => {
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', 'http://127.0.0.1:9', '--stuck-threshold', '0', '--', 'true']);
    expect(result.code, result.transcript).toBe(2);
    expect(result.stderr).toContain("--stuck-threshold must be a number of seconds > 0 and ≤ 31536000 (one year), not '0'");
  });

  it('a Vigil that hangs does not postpone the SIGKILL past the grace period after the deadline', async () => {
    // Prepare: the claim says the deadline is 2 s away; after it Vigil accepts connections but never answers
    let claimAt = 0;
    const fake = await vigil.fakeVigil((method, path) => {
      if (path.endsWith('/claims')) {
        claimAt = Date.now();
        return claimedReply('item-1', claimAt + 2_000);
      }
      return 'hang';
    });
    const pidFile = join(vigil.scratch(), 'hang.pid');
    // Act
    const runner = vigil.startVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '1', '--grace', '1', '--', 'sh', '-c', `trap '' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    const pid = await vigil.childPid(pidFile);
    // Assess: the runner enforces the deadlines it learned even when Vigil does not answer: the child is
    // killed at deadline (2 s) + grace (1 s). Polled with a deadline short of the 10 s a runner waiting on
    // Vigil would take (its confirm wait, the SDK's request timeout), long enough for a loaded machine.
    const gone = await pollUntil(async () => (processExists(pid) ? undefined : Date.now()), { what: 'the child to be killed', timeoutMs: Math.max(0, claimAt + 9_000 - Date.now()), intervalMs: 50 }).catch(() => undefined);
    runner.child.kill('SIGKILL');
    expect(gone, `child still alive ${Date.now() - claimAt} ms after the claim (deadline +2 s, grace 1 s)`).toBeDefined();
  });

  it('a second Ctrl-C does not leave a child that ignores SIGTERM running', async () => {
    // Prepare
    const fake = await vigil.fakeVigil((method, path) => {
      if (method === 'GET') return errorReply(403, 'forbidden', 'client route');
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 300_000) } };
      return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'failed', jobStatus: 'FAILED' } };
    });
    const pidFile = join(vigil.scratch(), 'ctrl-c.pid');
    const runner = vigil.startVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '2', '--', 'sh', '-c', `trap '' TERM INT; echo $$ > ${pidFile}; while :; do sleep 0.1; done`]);
    const pid = await vigil.childPid(pidFile);
    // Act: the operator presses Ctrl-C, and again
    runner.child.kill('SIGINT');
    await sleep(300);
    runner.child.kill('SIGINT');
    const result = await Promise.race([runner.done, sleep(15_000).then(() => undefined)]);
    // Assess: once the runner is gone, so is its child's group
    expect(result, 'the runner did not exit').toBeDefined();
    // The child ignores TERM and INT: only a SIGKILL ends it, so a child left running never goes (polled, as a kill lands a moment later).
    const gone = await pollUntil(async () => (processExists(pid) ? undefined : true), { what: 'the child to be gone', timeoutMs: 10_000, intervalMs: 50 }).catch(() => false);
    expect(gone, `child left running after the runner exited\n${result?.transcript}`).toBe(true);
  });
  it("a deadline the runner enforces itself sends the child's group SIGTERM once, not again when the grace period starts", async () => {
    // Prepare: a 1 s agent deadline; after the claim Vigil answers only 503, so the runner enforces the
    // deadline itself (a Vigil that answers decides: see runner-follows-vigils-clock.test.ts)
    const fake = await vigil.fakeVigil((method, path) => (path.endsWith('/claims') ? claimedReply('item-1', Date.now() + 1_000) : errorReply(503, 'service_unavailable', 'down')));
    const scratch = vigil.scratch();
    const terms = join(scratch, 'terms');
    // Act: the child counts the SIGTERMs it gets, and ignores them; the grace period outlasts the runner's wait for Vigil's word (5 s)
    // by 1 s, so a SIGTERM sent when that wait ends still reaches the child's trap before the SIGKILL
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--heartbeat', '0.2', '--grace', '6', '--', 'sh', '-c', `trap 'echo term >> ${terms}' TERM; while :; do sleep 0.1; done`], { timeoutMs: 45_000 });
    // Assess
    expect(readFileSync(terms, 'utf8').trim().split('\n'), result.transcript).toEqual(['term']);
  });

  // The runner beat every 5 s whatever the pool (`--heartbeat`'s default): an agent whose pool was
  // cancelled heard it up to 5 s later, past a grace period shorter than that, and was killed. Left
  // unnamed, it now beats at the cadence each claim answers: a third of the pool's grace period here.
  describe('against npm start: a pool cancel', () => {
    const cloud = useVigilProcess({ regions: ['us-east-1'] });

    it("is heard at the pool's cadence (no --heartbeat), and the agent's terminated lands within the grace period: graceful", async () => {
      // Prepare: a 3 s grace period, so a beat every second; the child cleans up at once on SIGTERM
      const pools = new PoolClient(cloud.regionUrl());
      const poolId = `cancel-heard-${randomUUID().slice(0, 8)}`;
      const pidFile = join(vigil.scratch(), 'cancel-heard.pid');
      const shell = `trap 'echo "{\\"cleaned\\":true}" > "$VIGIL_RESULT_FILE"; exit 0' TERM; echo $$ > ${pidFile}; while :; do sleep 0.1; done`;
      const created = await pools.createPool({ poolId, items: [{ itemId: 'item-1' }], config: { agent_timeout_secs: 120, agent_template: [{ shell }], timeout_config: { cleanup_grace_period_secs: 3 } } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const runner = vigil.startVigil(['run', '--pool', poolId, '--agent', 'agent-a', '--once', '--endpoint', cloud.regionUrl()]);
      await vigil.childPid(pidFile);
      // Act: cancelled well before the 5 s beat of before would come
      const cancelledAtMs = Date.now();
      const cancel = await pools.request('POST', `/pools/${poolId}/cancel`, {});
      const result = await runner.done;
      // Assess
      expect(cancel.status).toBe(200);
      expect(result.code, result.transcript).toBe(3);
      const item = (await pools.getItem(poolId, 'item-1')).body;
      const attempt = item.history[0];
      expect(attempt, JSON.stringify(item)).toMatchObject({ outcome: 'cancelled', resolution: 'graceful' });
      expect(Date.parse(attempt?.endedAt ?? '') - cancelledAtMs, JSON.stringify(item)).toBeLessThan(3_000);
      expect(item.partialResult).toEqual({ cleaned: true });
      expect(result.transcript).not.toMatch(/slower than/);
    });

    it("a --heartbeat slower than the pool's cadence is kept, and the runner says once what it risks", async () => {
      // Prepare: a 3 s grace period (a beat every second); two quick items
      const pools = new PoolClient(cloud.regionUrl());
      const poolId = `slow-beat-${randomUUID().slice(0, 8)}`;
      await pools.createPool({ poolId, items: [{ itemId: 'item-1' }, { itemId: 'item-2' }], config: { agent_template: [{ shell: 'sleep 0.2' }], timeout_config: { cleanup_grace_period_secs: 3 } } });
      // Act
      const result = await runVigil(['run', '--pool', poolId, '--agent', 'agent-a', '--endpoint', cloud.regionUrl(), '--heartbeat', '5'], { timeoutMs: 45_000 });
      // Assess
      expect(result.code, result.transcript).toBe(0);
      expect(result.stderr.match(/every 5 s, slower than the 1 s its pool asks for/g), result.transcript).toHaveLength(1);
    });
  });
});
