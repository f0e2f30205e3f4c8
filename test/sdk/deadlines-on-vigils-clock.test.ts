import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { claim, startWorkflow } from '../../shared/sdk/index.js';
import { iso, skewedVigil, type SkewedVigil } from '../support/skewed-vigil.js';

/**
 * The SDK judges Vigil's deadlines on Vigil's clock, as the HTTP `Date` header of its answers tells it
 * (shared/sdk/vigil-clock.ts). Before, it compared them with this machine's `Date.now()`: on a machine
 * whose clock is ahead, a workflow's deadline watch asked Vigil every second for as long as the skew,
 * and on one whose clock is behind, an attempt went on past its deadline that much longer while Vigil
 * was unreachable.
 */
describe('the SDK judges deadlines on Vigil’s clock', () => {
  const servers: SkewedVigil[] = [];
  afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

  it('a workflow on a machine 15 s ahead of Vigil does not ask Vigil every second about a deadline still 10 s away', async () => {
    // Prepare: the deadline is 10 s ahead on Vigil's clock (5 s past on this machine's)
    let deadline: number | undefined;
    const fake = await skewedVigil(-15_000, (_method, _path, _body, now) => {
      deadline ??= now + 10_000;
      return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(deadline) } };
    });
    servers.push(fake);
    const handle = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 120 });
    // Act: 3 s of a quiet worker (its heartbeat is 30 s away)
    await sleep(3_000);
    handle.stop();
    // Assess: the first report only; the deadline watch had nothing to ask
    expect(fake.calls.map((c) => c.path)).toEqual(['/jobs/job-1/workflows/wf-1/progress']);
    expect(handle.signal.aborted).toBe(false);
  });

  it('an attempt on a machine 15 s behind Vigil whose deadline passes while Vigil hangs is told to stop within seconds of Vigil’s deadline', async () => {
    // Prepare: the deadline is 1 s ahead on Vigil's clock (16 s on this machine's); every call after the claim hangs
    let claimedAtMs = 0;
    const fake = await skewedVigil(15_000, (_method, path, _body, now) => {
      if (!path.endsWith('/claims')) return 'hang';
      claimedAtMs = Date.now();
      return {
        status: 200,
        body: { itemId: 'item-1', attempt: 1, token: 'tok', input: { n: 1 }, deadlineAt: iso(now + 1_000), commands: [], checkpointIntervalSeconds: 300, lastCheckpoint: null },
      };
    });
    servers.push(fake);
    const attempt = await claim({ endpoint: fake.url, heartbeatIntervalMs: 500, retry: { retries: 0 }, requestTimeoutMs: 1_000 }, 'pool-1', 'agent-a');
    if (!attempt) throw new Error('nothing claimed');
    // Act
    const stoppedAt = await new Promise<number | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), 25_000);
      attempt.signal.addEventListener('abort', () => (clearTimeout(timer), resolve(Date.now())), { once: true });
    });
    attempt.stop();
    // Assess: asked at Vigil's deadline, 5 s to answer (the bound leaves a loaded machine room; on this machine's clock the deadline is 16 s away)
    expect(stoppedAt, 'attempt.signal never fired').toBeDefined();
    expect((stoppedAt ?? 0) - claimedAtMs).toBeLessThan(12_000);
  }, 40_000);
});
