import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { at } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * README: a worker gets a fresh budget when "it has completed its work: its last active workflow got
 * an outcome". reset-budget-when-idle.ts checks that the worker is idle once, then retries its budget
 * write on a version conflict without checking again: the conflicting write may be the very grant of
 * a job the worker has just started.
 */
describe('AD-26: a fresh budget only for a worker that has completed its work (dynalite)', () => {
  let store: InterleavingJobStore;
  const m = useTestManager({ store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });

  it('worker-a starts job-2 and is granted 7.5 s on it while its completion of job-1 resets its budget: the grant is taken back and the budget reset though it is active', async () => {
    const job1 = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const token1 = tokenOf(job1, 'wf-1');
    for (const [t, progress] of [[1, 0.1], [2, 0.2]] as const) {
      m.clock.set(at(t));
      expect(await requestExtension(m.deps, { workerId: 'worker-a', token: token1, currentProgress: progress })).toMatchObject({ granted: true });
    }
    m.clock.set(at(10));
    // Between the completion's idle check and its budget write, job-2 starts with worker-a, which asks at once.
    let onJob2: Awaited<ReturnType<typeof requestExtension>> | undefined;
    store.beforeNextWorkerSave(async () => {
      const other = sameTable(m);
      const { view } = await submitJob(other, { jobId: 'job-2', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
      const token2 = view.workflows.find((w) => w.workflowId === 'wf-1')?.token ?? '';
      onJob2 = await requestExtension(other, { workerId: 'worker-a', token: token2, currentProgress: 0.3 });
    });
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: token1 });
    expect(onJob2).toMatchObject({ granted: true, extensionSeconds: 7.5, remainingExtensions: 2 });
    // worker-a is active in job-2: its work is not complete, so no fresh budget, and job-2 keeps the grant it was told of.
    const budget = (await m.jobs.getWorker('worker-a'))?.budget;
    const job2 = await m.getJob('job-2');
    expect({ epoch: budget?.epoch, count: budget?.count, job2Total: job2.tracking.totalExtensionsGranted }).toEqual({ epoch: 0, count: 3, job2Total: 7.5 });
  });
});
