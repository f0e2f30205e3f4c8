import { afterEach, describe, expect, it, vi } from 'vitest';
import { runVigil } from '../support/vigil-cli.js';
import { iso, skewedVigil, vigilOnClock, type SkewedVigil } from '../support/skewed-vigil.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * The runner judges Vigil's deadlines (`deadlineAt`, `terminateBy`) on Vigil's clock, as the HTTP
 * `Date` header of its answers tells it (shared/sdk/vigil-clock.ts), and at a deadline its clock saw
 * come it asks Vigil and follows the answer; only a Vigil that does not answer leaves it to enforce the
 * deadline (plus the grace period) itself. Before, it compared them with its own `Date.now()`: a runner
 * whose clock is ahead of Vigil's — an unsynced VM, WSL2 after a sleep, a container on a drifting host,
 * a local cloud on its virtual clock — saw every deadline that much early. Vigil was reachable and
 * said the work may go on, yet:
 * - `vigil run --pool` sent SIGTERM the moment its own clock passed the deadline, before asking Vigil,
 *   and when Vigil did not confirm within min(grace, 10 s) reported `terminated` for an attempt Vigil
 *   still ran, which Vigil takes as an agent that stopped unasked (agent-calls.ts `stoppedUnasked`): the
 *   item went back to the pool (toward escalation) as `cancelled`, no timeout was recorded, and the
 *   pool's `timeout_action` (dlq, skip, fail) was bypassed;
 * - `vigil run --job` asked, heard RUNNING with the same deadline, and still stopped the child
 *   (`Date.now() < stopAt` on the runner's clock).
 * The contract lets the runner act on its own only "if Vigil becomes unreachable". The first two cases
 * put Vigil's clock 15 s behind the runner's; its answers carry its own time in the HTTP Date header.
 */
describe('vigil run judges deadlines on Vigil’s clock and, while Vigil answers, follows it', () => {
  const servers: SkewedVigil[] = [];
  afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

  const SKEW_MS = -15_000;

  it('vigil run --pool lets a child finish that ends before Vigil’s deadline (Vigil reachable, saying continue)', async () => {
    // Prepare: the attempt's deadline is 8 s away on Vigil's clock (7 s past on the runner's)
    let deadline: number | undefined;
    let terminatedWhileRunning = 0;
    const fake = await skewedVigil(SKEW_MS, (_method, path, _body, now) => {
      if (path.endsWith('/claims')) {
        if (deadline !== undefined) return { status: 204 };
        deadline = now + 8_000;
        return {
          status: 200,
          body: { itemId: 'item-1', attempt: 1, token: 'tok', input: { n: 1 }, deadlineAt: iso(deadline), commands: [], checkpointIntervalSeconds: 300, lastCheckpoint: null },
        };
      }
      if (path.endsWith('/heartbeat')) {
        if (deadline !== undefined && now >= deadline) return { status: 200, body: { action: 'terminate', deadlineAt: iso(deadline), terminateBy: iso(deadline + 30_000) } };
        return { status: 200, body: { action: 'continue', deadlineAt: iso(deadline ?? now) } };
      }
      if (path.endsWith('/complete')) return { status: 200, body: { state: 'succeeded' } };
      if (path.endsWith('/terminated')) {
        // Before its deadline Vigil has not asked the attempt to stop: this is a give-back (stoppedUnasked)
        if (deadline !== undefined && now < deadline) terminatedWhileRunning++;
        return { status: 200, body: { state: 'available' } };
      }
      return { status: 404, body: { error: { code: 'route_not_found', message: path } } };
    });
    servers.push(fake);
    // Act: the child needs 1.5 s, well inside Vigil's 8 s
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--grace', '5', '--heartbeat', '0.5', '--', 'sh', '-c', 'sleep 1.5'], { timeoutMs: 40_000 });
    // Assess: the child ran to its end and its success was reported; nothing was given back
    const calls = fake.calls.map((c) => `${c.method} ${c.path} ${JSON.stringify(c.body)}`).join('\n');
    expect({ code: result.code, completes: fake.calls.filter((c) => c.path.endsWith('/complete')).map((c) => (c.body as { outcome?: string }).outcome), terminated: fake.calls.filter((c) => c.path.endsWith('/terminated')).length, terminatedWhileRunning }, `${result.transcript}\ncalls:\n${calls}`).toEqual({
      code: 0,
      completes: ['succeeded'],
      terminated: 0,
      terminatedWhileRunning: 0,
    });
  });

  it('vigil run --job lets a child finish while Vigil answers RUNNING with a deadline still ahead on its clock', async () => {
    // Prepare: the job's deadline is 4 s away on Vigil's clock (11 s past on the runner's, 6 s past with its 5 s slack)
    let deadline: number | undefined;
    const fake = await skewedVigil(SKEW_MS, (method, path, _body, now) => {
      if (method === 'GET') return { status: 403, body: { error: { code: 'forbidden', message: 'client route' } } };
      if (path.endsWith('/progress')) {
        deadline ??= now + 4_000;
        const over = now >= deadline;
        return { status: 200, body: { status: over ? 'TIMED_OUT' : 'RUNNING', cancel: over, deadlineAt: iso(deadline) } };
      }
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      return { status: 404, body: { error: { code: 'route_not_found', message: path } } };
    });
    servers.push(fake);
    // Act: the child needs 1.5 s
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '1', '--', 'sh', '-c', 'sleep 1.5'], { timeoutMs: 40_000 });
    // Assess: Vigil never said stop and the child finished before Vigil's deadline: it completed
    const calls = fake.calls.map((c) => `${c.method} ${c.path} @vigil+${c.vigilNow - (deadline ?? 0) + 4_000}ms`).join('\n');
    expect({ code: result.code, completes: fake.calls.filter((c) => c.path.endsWith('/complete')).length }, `${result.transcript}\ncalls:\n${calls}`).toEqual({ code: 0, completes: 1 });
  });

  it('vigil run --pool on a Vigil whose clock stands still (a virtual clock) lets a child run past the wall-clock deadline while Vigil says continue', async () => {
    // Prepare: Vigil's clock is frozen; the deadline is 2 s ahead on it, so it never comes. Heartbeats are
    // 5 s apart: only asking at the deadline tells the runner that Vigil's time has not moved.
    const frozenAt = Date.now();
    let terminated = 0;
    const fake = await vigilOnClock(
      () => frozenAt,
      (_method, path) => {
        if (path.endsWith('/claims')) {
          return {
            status: 200,
            body: { itemId: 'item-1', attempt: 1, token: 'tok', input: { n: 1 }, deadlineAt: iso(frozenAt + 2_000), commands: [], checkpointIntervalSeconds: 300, lastCheckpoint: null },
          };
        }
        if (path.endsWith('/heartbeat')) return { status: 200, body: { action: 'continue', deadlineAt: iso(frozenAt + 2_000) } };
        if (path.endsWith('/complete')) return { status: 200, body: { state: 'succeeded' } };
        if (path.endsWith('/terminated')) terminated++;
        return { status: 200, body: {} };
      },
    );
    servers.push(fake);
    // Act: the child needs 4 s, twice the deadline's distance on the wall clock
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--grace', '10', '--heartbeat', '5', '--', 'sh', '-c', 'sleep 4'], { timeoutMs: 40_000 });
    // Assess
    const completes = fake.calls.filter((c) => c.path.endsWith('/complete')).map((c) => (c.body as { outcome?: string }).outcome);
    expect({ code: result.code, completes, terminated }, result.transcript).toEqual({ code: 0, completes: ['succeeded'], terminated: 0 });
  });

  it('vigil run --pool whose Vigil is 15 s ahead and stops answering kills the child at Vigil’s deadline + grace, not 15 s later', async () => {
    // Prepare: Vigil's clock is 15 s ahead of the runner's; the deadline is 3 s ahead on it (18 s on the
    // runner's own clock). After the claim every call answers 503: Vigil is unreachable.
    let claimedAtMs = 0;
    const fake = await skewedVigil(15_000, (_method, path, _body, now) => {
      if (!path.endsWith('/claims')) return { status: 503, body: { error: { code: 'service_unavailable', message: 'down' } } };
      if (claimedAtMs !== 0) return { status: 204 };
      claimedAtMs = Date.now();
      return {
        status: 200,
        body: { itemId: 'item-1', attempt: 1, token: 'tok', input: { n: 1 }, deadlineAt: iso(now + 3_000), commands: [], checkpointIntervalSeconds: 300, lastCheckpoint: null },
      };
    });
    servers.push(fake);
    // Act: the child ignores SIGTERM and would run for a minute
    const result = await runVigil(['run', '--pool', 'pool-1', '--agent', 'agent-a', '--once', '--endpoint', fake.url, '--grace', '1', '--heartbeat', '0.5', '--', 'sh', '-c', "trap '' TERM; sleep 60"], { timeoutMs: 50_000 });
    // Assess: the group is gone (and `terminated` offered) by deadline (3 s) + grace (1 s), with room for a
    // loaded machine; judged on the runner's own clock the deadline would come at 18 s
    const terminatedCall = fake.calls.find((c) => c.path.endsWith('/terminated'));
    const terminatedAfterMs = terminatedCall === undefined ? undefined : terminatedCall.vigilNow - 15_000 - claimedAtMs;
    expect(terminatedAfterMs, result.transcript).toBeDefined();
    expect(terminatedAfterMs, result.transcript).toBeLessThan(10_000);
  });

  it('vigil run --job lets a child finish while Vigil still answers RUNNING past its deadline (its timer not fired yet)', async () => {
    // Prepare: clocks agree; the deadline is 0.5 s away, but Vigil's timeout only fires 12 s after it
    let deadline: number | undefined;
    const fake = await skewedVigil(0, (method, path, _body, now) => {
      if (method === 'GET') return { status: 403, body: { error: { code: 'forbidden', message: 'client route' } } };
      if (path.endsWith('/progress')) {
        deadline ??= now + 500;
        const over = now >= deadline + 12_000;
        return { status: 200, body: { status: over ? 'TIMED_OUT' : 'RUNNING', cancel: over, deadlineAt: iso(deadline) } };
      }
      if (path.endsWith('/complete')) return { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      return { status: 404, body: { error: { code: 'route_not_found', message: path } } };
    });
    servers.push(fake);
    // Act: the child needs 7 s, past the deadline and the runner's 5 s of slack after it
    const result = await runVigil(['run', '--job', 'job-1', '--workflow', 'wf-1', '--worker', 'w', '--token', 't', '--endpoint', fake.url, '--grace', '1', '--', 'sh', '-c', 'sleep 7'], { timeoutMs: 40_000 });
    // Assess: Vigil never said cancel before the child finished: it completed
    const completes = fake.calls.filter((c) => c.path.endsWith('/complete')).length;
    expect({ code: result.code, completes }, result.transcript).toEqual({ code: 0, completes: 1 });
  });
});
