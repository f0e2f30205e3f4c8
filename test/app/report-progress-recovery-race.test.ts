import { describe, expect, it } from 'vitest';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { ReportOrderStore, type ReportStep } from './support/report-order-store.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// Review finding: a silently failed worker's report re-read its health from its workflows while
// writing its own workflow; once that write had landed, the worker looked healthy, so it was never
// recovered (AD-26 `reset`): no fresh budget, and its old grants were not retired.
describe("a silently failed worker's report recovers it whichever of its own workflow write and its health re-read lands first (dynalite)", () => {
  const m = useTestManager({ store: (doc, tableName) => new ReportOrderStore(doc, tableName) });

  /** worker-a on job-1 and job-2, heard on both at 5 s, granted 30 s at 10 s (on both jobs): health deadline 66 s, failed after 96 s. */
  async function grantedThenSilent() {
    const job1 = await submit(m, { jobId: 'job-1', timeoutSeconds: 1_000, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const job2 = await submit(m, { jobId: 'job-2', timeoutSeconds: 1_000, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const tokens = { job1: tokenOf(job1, 'wf-1'), job2: tokenOf(job2, 'wf-1') };
    m.clock.set(at(5));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.job1, progress: 0.1 });
    await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.job2, progress: 0.1 });
    m.clock.set(at(10));
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokens.job1, currentProgress: 0.5 })).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(30);
    return tokens;
  }

  it.each<ReportStep>(['workflow write', 'health re-read'])('%s first: a fresh budget, and the old grant retired from its other job', async (first) => {
    // Prepare
    const tokens = await grantedThenSilent();
    m.clock.set(at(150));
    const store = m.jobs as ReportOrderStore;
    store.nextReportIn(first);
    // Act: worker-a, silent since 5 s, reports progress on job-1 at 150 s
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.job1, progress: 0.6 });
    // Assess
    expect(store.landed[0]).toBe(first);
    expect(store.landed).toHaveLength(2);
    const worker = await m.jobs.getWorker('worker-a');
    expect(worker?.budget).toMatchObject({ epoch: 1, count: 0, totalSeconds: 0 });
    expect(worker?.lastHealthAt).toBe(at(150));
    expect((await m.getJob('job-2')).tracking).toMatchObject({ totalExtensionsGranted: 0, workersWithExtensions: 0 });
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokens.job1, currentProgress: 0.7 })).toMatchObject({
      granted: true,
      extensionSeconds: 30,
      remainingExtensions: 4,
    });
  });

  it('a worker heard on its other workflow at this very instant never failed: no fresh budget, its grant stays', async () => {
    // Prepare: worker-a keeps reporting on job-2 (its workflow carries each call, the worker item stays at 5 s),
    // the last time at 150 s, the instant of its report on job-1, whose workflow it last reported on at 5 s
    const tokens = await grantedThenSilent();
    for (const seconds of [30, 55, 80, 105, 130, 150]) {
      m.clock.set(at(seconds));
      await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.job2, step: seconds });
    }
    expect((await m.jobs.getWorker('worker-a'))?.lastHealthAt).toBe(at(5));
    const store = m.jobs as ReportOrderStore;
    store.nextReportIn('workflow write');
    // Act
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.job1, progress: 0.6 });
    // Assess
    expect(store.landed).toEqual(['workflow write', 'health re-read']);
    expect((await m.jobs.getWorker('worker-a'))?.budget).toMatchObject({ epoch: 0, count: 1, totalSeconds: 30 });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(30);
  });
});
