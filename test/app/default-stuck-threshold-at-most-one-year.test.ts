import { describe, expect, it } from 'vitest';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { parseFlags } from '../../shared/local/cli-flags.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * Proves that the default stuck threshold is held to what a job may name itself (one year, the
 * contract's `stuckThresholdSeconds` bound): `npm start -- --stuck-threshold-seconds S` refuses more,
 * and a policy that has more anyway gives a job that names none a threshold of one year. Unbounded,
 * past about 273,000 years the stuck deadline left the Date range, and every answer that shows it
 * (`stuckAt` of a progress answer, GET /jobs) threw a RangeError: a 500 on every progress report of
 * every such job. (`--gate-fallback-seconds` and the CDK context are bounded the same way:
 * test/infra/vigil-config.test.ts.)
 */
describe('a default stuck threshold beyond what a job may name', () => {
  it('npm start refuses a default stuck threshold a job could not name itself (more than one year)', () => {
    expect(() => parseFlags(['--stuck-threshold-seconds', '10000000000000'])).toThrow(/--stuck-threshold-seconds must be at most 31536000 \(one year/);
    // Written as an exponent it is refused too, for not being digits (test/unit/local/seconds-flags-in-digits.test.ts).
    expect(() => parseFlags(['--stuck-threshold-seconds', '1e13'])).toThrow(/--stuck-threshold-seconds needs a number of seconds written in digits/);
    expect(() => parseFlags(['--gate-fallback-seconds', '31536001'])).toThrow(/--gate-fallback-seconds must be at most 31536000 \(one year/);
    expect(parseFlags(['--stuck-threshold-seconds', '31536000']).stuckThresholdSeconds).toBe(31_536_000);
  });

  describe('when configured anyway (dynalite)', () => {
    const m = useTestManager({ policy: { defaultStuckThresholdSeconds: 1e13 } });

    it('a worker of a job that names no threshold can still report progress and read its job', async () => {
      // Prepare: a job that names no stuck threshold
      const token = tokenOf(await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }), 'wf-1');
      // Act
      const answer = reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token, progress: 0.5 });
      // Assess: answered, not a RangeError (a 500)
      await expect(answer).resolves.toMatchObject({ status: 'RUNNING', cancel: false });
      await expect(getJob(m.deps, 'job-1')).resolves.toMatchObject({ timeoutTracking: { stuckThresholdSeconds: 31_536_000 } });
    });
  });
});
