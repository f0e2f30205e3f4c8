import { afterEach, describe, expect, it, vi } from 'vitest';
import { runVigil } from '../support/vigil-cli.js';
import { iso, skewedVigil, type SkewedVigil } from './skewed-vigil.js';

// Real processes.
vi.setConfig({ testTimeout: 60_000 });

/**
 * Review (time): the runner (`shared/runner/`) compares Vigil's absolute deadlines (`deadlineAt`,
 * `terminateBy`, on Vigil's clock) with its own `Date.now()`. A runner whose clock is ahead of
 * Vigil's — an unsynced VM, WSL2 after a sleep, a container on a drifting host — sees every deadline
 * that much early. Vigil is reachable and says the work may go on, yet:
 * - `vigil run --pool` sends SIGTERM the moment its own clock passes the deadline, before asking Vigil
 *   (run-pool-item.ts: `end.cause === 'deadline'` → `group.signal('SIGTERM')`, then `confirmTimeout`);
 *   when Vigil does not confirm within min(grace, CONFIRM_MS) it then reports `terminated` for an
 *   attempt Vigil still runs, which Vigil takes as an agent that stopped unasked (agent-calls.ts
 *   `stoppedUnasked`): the item goes back to the pool (toward escalation) as `cancelled`, no timeout is
 *   recorded, and the pool's `timeout_action` (dlq, skip, fail) is bypassed;
 * - `vigil run --job` asks, hears RUNNING with the same deadline, and still stops the child
 *   (run-workflow.ts `deadlineMovedOn`: `Date.now() < stopAt` on the runner's clock).
 * The README promises the runner acts on its own clock "after asking Vigil whether it moved", and the
 * contract only "if Vigil becomes unreachable". Here Vigil's clock is 15 s behind the runner's; its
 * answers carry its own time in the HTTP Date header.
 */
describe('a runner whose clock is ahead of Vigil’s', () => {
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
});
