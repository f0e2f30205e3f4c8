import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { StoreThatFailsOneWorkerWrite } from './support/store-that-fails-one-worker-write.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';


describe('AD-26 extension retried after a crash between the job writes and the budget write (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new StoreThatFailsOneWorkerWrite(doc, tableName) });

  it('the retried request grants once: each job is extended by the grant once, the budget counts it once', async () => {
    // Prepare
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const ask = () => requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.3 });
    (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = true;
    await expect(ask()).rejects.toThrow(/died/);
    // Act
    const retried = await ask();
    // Assess
    expect(retried).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    const job = await m.getJob('job-1');
    expect(job.tracking.totalExtensionsGranted).toBe(30);
    expect(job.tracking.workersWithExtensions).toBe(1);
    expect((await m.jobs.getWorker('worker-a'))?.budget).toMatchObject({ count: 1, totalSeconds: 30 });
  });

  it('a wake-up between the crash and the retry keeps the grant of a worker with no item yet, and the retry is told the truth', async () => {
    // Prepare: the grant reached the job, then the process died before the worker item's first write
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const ask = () => requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.3 });
    m.clock.set(at(50));
    (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = true;
    await expect(ask()).rejects.toThrow(/died/);
    // Act: the 60 s wake-up, then the worker's retry
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const retried = await ask();
    // Assess: a worker without an item is not a failed worker; the job holds the grant once
    const job = await m.getJob('job-1');
    expect(job.status).toBe('RUNNING');
    expect(retried).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect(job.tracking.totalExtensionsGranted).toBe(30);
    expect(m.timers.expectArmed('job-1').dueAt).toBe(at(90));
  });
});
