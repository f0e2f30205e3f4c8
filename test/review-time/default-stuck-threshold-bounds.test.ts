import { describe, expect, it } from 'vitest';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { parseFlags } from '../../shared/local/cli-flags.js';
import { submit, tokenOf, useTestManager } from '../app/support/test-manager.js';

/**
 * Review (time): a job's own `stuckThresholdSeconds` is capped at one year (contract,
 * manager-requests.ts `durationSeconds`), but the default a job gets when it names none comes from
 * `npm start -- --stuck-threshold-seconds S` (cli-flags.ts `positiveSeconds`: any positive number)
 * or the deployed `defaultStuckThresholdSeconds` (vigil-config.ts `readSeconds`: any positive
 * number). Past about 273,000 years the stuck deadline is outside the Date range, and every answer
 * that shows it (`stuckAt`, shared/app/report-progress.ts:61) throws a RangeError: a 500 on every
 * progress report of every such job. The same holds for `--gate-fallback-seconds` and the stuck
 * deadline shown by GET /jobs.
 */
describe('a default stuck threshold beyond what a job may name', () => {
  it('npm start refuses a default stuck threshold a job could not name itself (more than one year)', () => {
    expect(() => parseFlags(['--stuck-threshold-seconds', '1e13'])).toThrow(/stuck-threshold-seconds/);
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
      await expect(getJob(m.deps, 'job-1')).resolves.toBeDefined();
    });
  });
});
