import { afterEach, describe, expect, it } from 'vitest';
import { runVigil } from '../support/vigil-cli.js';
import { iso, skewedVigil, type SkewedVigil } from '../support/skewed-vigil.js';

/**
 * `vigil status` and `vigil watch` count the time left on Vigil's clock, as the `Date` header of its
 * answers tells it, not on this machine's (which may be off, or the local cloud's clock virtual).
 */
describe('vigil status: time left on Vigil’s clock', () => {
  const servers: SkewedVigil[] = [];
  afterEach(async () => void (await Promise.all(servers.splice(0).map((s) => s.close()))));

  it('on a machine 15 s ahead of Vigil, a deadline a minute away on Vigil’s clock shows a minute left, not 45 s', async () => {
    // Prepare
    const fake = await skewedVigil(-15_000, (_method, _path, _body, now) => ({
      status: 200,
      body: {
        jobId: 'job-1',
        status: 'RUNNING',
        strategy: 'local_authority',
        fenceToken: 1,
        deadlineAt: iso(now + 60_000),
        timeoutTracking: {
          startedAt: iso(now),
          lastProgressAt: iso(now),
          timeoutSeconds: 60,
          stuckThresholdSeconds: 120,
          totalExtensionsGranted: 0,
          effectiveDeadlineAt: iso(now + 60_000),
          locallyTimedOut: false,
          globallyTimedOut: false,
        },
        workflows: [{ workflowId: 'wf-1', workerId: 'w', state: 'running' }],
      },
    }));
    servers.push(fake);
    // Act
    const result = await runVigil(['status', 'job-1', '--endpoint', fake.url]);
    // Assess: to within the Date header's second
    expect(result.code, result.transcript).toBe(0);
    expect(result.stdout.split('\n')[0], result.transcript).toMatch(/^job-1 {2}RUNNING {2}(59s|1m0s) left$/);
  });
});
