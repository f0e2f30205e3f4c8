import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { StoreThatFailsOneWorkerWrite } from './support/store-that-fails-one-worker-write.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * docs/api.md: a worker silent past its health deadline plus 30 s "is failed and its grants stop
 * counting on every job"; README: when it is back it gets a fresh budget, which "retires the old
 * budget's grants on every job". A grant whose request crashed after reaching the job but before the
 * budget write left the budget untouched (epoch 0, count 0): the recovery kept that very budget, so
 * the grant made before the failure counted again and kept the job alive past its own timeout.
 */
describe('AD-26: a silently failed worker that is back does not revive a grant made before its failure (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new StoreThatFailsOneWorkerWrite(doc, tableName) });

  it('the grant of a request that crashed before its budget write stops counting at the failure, and still after the recovery: the job times out at its own 100 s', async () => {
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 100, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-a', workerId: 'worker-a' }] });
    const token = tokenOf(submitted, 'wf-a');
    m.clock.set(at(5));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', token, progress: 0.1 });
    // The grant reaches the job (deadline 130 s), then the process dies before the budget write.
    m.clock.set(at(10));
    (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = true;
    await expect(requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: 0.3 })).rejects.toThrow(/died/);
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
    // Heard of last at 5 s: suspect after 36 s, failed after 66 s. Back at 90 s, with a heartbeat.
    m.clock.set(at(90));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', token });
    m.clock.set(at(100));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const job = await m.getJob('job-1');
    expect({ status: job.status, total: job.tracking.totalExtensionsGranted }).toEqual({ status: 'TIMED_OUT', total: 0 });
  });
});
