import { describe, expect, it, vi } from 'vitest';
import { countCalls, iso, useFakeVigil } from '../support/fake-vigil.js';
import { pollUntil } from '../support/poll.js';

// A real `vigil` process (tsx compiles on start).
vi.setConfig({ testTimeout: 60_000 });

/**
 * Proves that `vigil watch --interval S` waits S between polls also when S is longer than Node's
 * setTimeout can wait (2^31 − 1 ms, about 24.8 days): such a timer fires after 1 ms, and watch then
 * polled Vigil in a tight loop.
 */
describe('vigil watch with an --interval longer than setTimeout can wait', () => {
  const vigil = useFakeVigil();

  it('polls once, then waits, not in a tight loop', async () => {
    // Prepare: a job that stays RUNNING
    const fake = await vigil.fakeVigil(() => ({
      status: 200,
      body: {
        jobId: 'job-1', status: 'RUNNING', strategy: 'local_authority', fenceToken: 1, deadlineAt: iso(Date.now() + 300_000),
        timeoutTracking: {
          startedAt: iso(Date.now()), lastProgressAt: iso(Date.now()), timeoutSeconds: 300, stuckThresholdSeconds: 120,
          totalExtensionsGranted: 0, effectiveDeadlineAt: iso(Date.now() + 300_000), locallyTimedOut: false, globallyTimedOut: false,
        },
        workflows: [{ workflowId: 'wf-1', workerId: 'w', state: 'running' }],
      },
    }));
    // Act: 30 days between polls (2.592e9 ms); one second after the first poll
    const watching = vigil.startVigil(['watch', 'job-1', '--interval', '2592000', '--endpoint', fake.url]);
    await pollUntil(async () => (countCalls(fake, 'GET', '/jobs/job-1') > 0 ? true : undefined), { what: 'the first poll', timeoutMs: 30_000, intervalMs: 20 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    watching.child.kill('SIGKILL');
    const result = await watching.done;
    // Assess
    expect(countCalls(fake, 'GET', '/jobs/job-1'), result.transcript).toBe(1);
  });
});
