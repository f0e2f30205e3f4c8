import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * README: "`currentProgress` is the progress of the job the token names ... progress is never compared
 * across jobs." A job submitted again with an id whose earlier job expired is another job (its own
 * incarnation; the earlier one's tokens get 403). The budget keyed its per-job progress by job id only
 * (extension-budget.ts `progressByJob`), so the earlier job's progress was compared with the new one's
 * (a review finding); it is keyed by id and incarnation.
 */
describe('AD-26: progress of an earlier job with the same id is not this job\'s progress (dynalite)', () => {
  const m = useTestManager();

  it('worker-a reached 0.9 on the earlier job-1; on the new job-1 its first request at 0.2 is denied "no progress"', async () => {
    // worker-a keeps a long job (so its budget is not reset by going idle).
    await submit(m, { jobId: 'job-long', timeoutSeconds: 100_000, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const old = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(old, 'wf-1'), currentProgress: 0.9 })).toMatchObject({ granted: true });
    await cancelJob(m.deps, 'job-1', 'done with it');
    // The earlier job-1's item expires; job-1 is submitted again with worker-a.
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-1', sk: 'JOB' } }));
    m.clock.set(at(10));
    const fresh = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // Act: the first request on the new job-1 (no grant of this job yet)
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(fresh, 'wf-1'), currentProgress: 0.2 });
    // Assess: progress is compared within one job only: the earlier job's 0.9 is not this job's.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 15 });
  });
});
