import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { StoreThatFailsOneWorkerWrite } from './support/store-that-fails-one-worker-write.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';


/**
 * README: a worker gets a fresh budget when "it has completed its work: its last active workflow got an
 * outcome", and "a fresh budget retires the old budget's grants on every job". The grant of a request
 * that crashed after reaching the job but before the budget write (the crash request-extension.ts
 * is written for) was left on the job when the worker then finished instead of retrying: the reset
 * saw an untouched budget (count 0, epoch 0), or no worker item at all, and walked nothing (review
 * findings). The index still lists the grant's record, so the reset now starts a fresh budget.
 */
describe('AD-26: a worker that completed its work leaves no grant counting on a job (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new StoreThatFailsOneWorkerWrite(doc, tableName) });

  /**
   * worker-a's grant reaches job-1 at 10 s (deadline 90 s), then the process dies before the budget
   * write; at 20 s worker-a finishes its part instead of asking again; worker-c keeps the job alive.
   * `heardBefore`: worker-a reported at 5 s (it has a worker item) or the extension was its first call.
   */
  async function grantCrashedThenWorkerFinished(heardBefore: boolean) {
    const submitted = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      stuckThresholdSeconds: 100_000,
      workflows: [
        { workflowId: 'wf-a', workerId: 'worker-a' },
        { workflowId: 'wf-c', workerId: 'worker-c' },
      ],
    });
    const tokenA = tokenOf(submitted, 'wf-a');
    if (heardBefore) {
      m.clock.set(at(5));
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', token: tokenA, progress: 0.1 });
    }
    m.clock.set(at(10));
    (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = true;
    await expect(requestExtension(m.deps, { workerId: 'worker-a', token: tokenA, currentProgress: 0.3 })).rejects.toThrow(/died/);
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
    m.clock.set(at(20));
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', outcome: 'completed', token: tokenA });
    const budget = (await m.jobs.getWorker('worker-a'))?.budget;
    m.clock.set(at(55));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-c', workerId: 'worker-c', token: tokenOf(submitted, 'wf-c'), progress: 0.5 });
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const job = await m.getJob('job-1');
    return { budget, job: { status: job.status, total: job.tracking.totalExtensionsGranted } };
  }

  it('a grant whose request crashed before the budget write stops counting once the worker finished its part: the job times out at its own 60 s', async () => {
    const { budget, job } = await grantCrashedThenWorkerFinished(true);
    expect(budget).toMatchObject({ epoch: 1, count: 0 });
    expect(job).toEqual({ status: 'TIMED_OUT', total: 0 });
  });

  it('the same when the crashed extension was the worker\'s first call: its completion writes its first item, with a fresh budget', async () => {
    const { budget, job } = await grantCrashedThenWorkerFinished(false);
    expect(budget).toMatchObject({ epoch: 1, count: 0 });
    expect(job).toEqual({ status: 'TIMED_OUT', total: 0 });
  });
});
