import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import type { WorkerGrantRecord } from '../../shared/domain/extension-ledger.js';
import { at } from '../support/fixtures.js';
import { storePausedAfterGrantRead } from './support/grant-read-pausing-store.js';
import { sameTable, submit, tokenOf, useTestManager } from './support/test-manager.js';

// A job id submitted again after the earlier job expired finds that job's grant records still there
// (DynamoDB's TTL deletes them days late; local dynalite never does). A worker's first grant on the new
// job replaced such a record with an unconditional put: two grants racing there (two requests of the
// worker, or a late retry) each put their own record and each applied its grant at its own worker
// index, so the job held two grants of one worker while the record named one of them. The other one no
// retirement finds: a worker that failed, or got a fresh budget, kept extending the job.
describe("a worker's first grant on a job whose id an earlier job had (dynalite)", () => {
  const m = useTestManager();
  const newJob = { jobId: 'job-1', incarnation: 'new', workerId: 'worker-a', epoch: 1, grantedAt: at(10) };

  it('two grants racing past the earlier job\'s record: the later one is answered the index the first stored, and the newer grant stays', async () => {
    // Prepare: the earlier job's record; a grant of the new job reads it, and another grant (newer) runs whole before its put
    await m.jobs.recordGrant({ ...newJob, incarnation: 'old', workerIndex: 5, epoch: 0, count: 1, seconds: 30, grantedAt: at(0) });
    const paused = storePausedAfterGrantRead(m);
    let newerIndex: number | undefined;
    paused.afterNextGrantRead(async () => (newerIndex = await m.jobs.recordGrant({ ...newJob, workerIndex: 0, count: 2, seconds: 45 })));
    // Act
    const lateIndex = await paused.jobs.recordGrant({ ...newJob, workerIndex: 3, count: 1, seconds: 30 });
    // Assess
    expect([newerIndex, lateIndex]).toEqual([0, 0]);
    const records: WorkerGrantRecord[] = await m.jobs.findGrantRecords('job-1', 'new');
    expect(records).toMatchObject([{ incarnation: 'new', workerIndex: 0, count: 2, seconds: 45 }]);
    expect(await m.jobs.findWorkOfWorker('worker-a')).toMatchObject({ grants: [{ jobId: 'job-1', workerIndex: 0 }] });
  });

  it('a worker that fails after two of its requests raced there leaves no grant on the job', async () => {
    // Prepare: an earlier job 'job-1' where worker-a got a grant, expired; the new 'job-1' gives worker-a two workflows
    const earlier = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-old', workerId: 'worker-a' }] });
    await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(earlier, 'wf-old'), currentProgress: 0.1 });
    await cancelJob(m.deps, 'job-1', 'done with it');
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-1', sk: 'JOB' } }));
    m.clock.set(at(10));
    const job = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 300,
      workflows: [
        { workflowId: 'wf-x', workerId: 'worker-a' },
        { workflowId: 'wf-y', workerId: 'worker-a' },
      ],
    });
    // Request A applies through the worker's lowest workflow (wf-x); between its read of the earlier
    // record and its put, wf-x completes and request B applies through wf-y
    const paused = storePausedAfterGrantRead(m);
    paused.afterNextGrantRead(async () => {
      await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-x', workerId: 'worker-a', outcome: 'completed', token: tokenOf(job, 'wf-x') });
      await requestExtension(sameTable(m), { workerId: 'worker-a', token: tokenOf(job, 'wf-y'), currentProgress: 0.2 });
    });
    await requestExtension(sameTable(m, paused.jobs), { workerId: 'worker-a', token: tokenOf(job, 'wf-y'), currentProgress: 0.3 });
    const extended = await m.getJob('job-1');
    // Act
    await reportWorkerFailure(m.deps, 'worker-a');
    // Assess: one grant of the worker on the job, named by its record, and none once the worker failed
    expect(extended.tracking.workersWithExtensions).toBe(1);
    const after = await m.getJob('job-1');
    expect(after.tracking.totalExtensionsGranted).toBe(0);
    expect(after.tracking.workerGrants).toBeUndefined();
  });
});
