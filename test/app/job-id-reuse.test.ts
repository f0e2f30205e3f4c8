import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { retireWorkerGrantsEverywhere } from '../../shared/app/retire-worker-grants.js';
import { effectiveDeadline } from '../../shared/domain/deadlines.js';
import { InvalidTokenError, WorkflowNotFoundError } from '../../shared/domain/errors.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * once a finished job's item has expired its id can be submitted again, while the old
 * workflow items (and the tokens issued for them) remain. Tokens are bound to the job's incarnation:
 * an old token gets 403, and an old workflow item is never taken for one of the new job's.
 */
describe('a job id reused after the old job expired (dynalite)', () => {
  const m = useTestManager();

  /** DynamoDB TTL removed the finished job's item; its workflow items expire on their own schedule. */
  const expireJobItem = (t: TestManager, jobId: string) =>
    t.dynamo.doc.send(new DeleteCommand({ TableName: t.tableName, Key: { pk: `JOB#${jobId}`, sk: 'JOB' } }));

  async function reusedId() {
    const old = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      workflows: [
        { workflowId: 'wf-old', workerId: 'worker-a' },
        { workflowId: 'wf-same', workerId: 'worker-a' },
      ],
    });
    await cancelJob(m.deps, 'job-1', 'done with it');
    await expireJobItem(m, 'job-1');
    m.clock.set(at(10));
    const fresh = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 600,
      workflows: [
        { workflowId: 'wf-same', workerId: 'worker-a' },
        { workflowId: 'wf-new', workerId: 'worker-b' },
      ],
    });
    return { old, fresh };
  }

  it("the old job's token for a workflow id the new job reuses → invalid_token, and the new job is untouched", async () => {
    // Prepare
    const { old } = await reusedId();
    const before = await m.getJob('job-1');

    // Act
    // Settled together, so neither rejection goes unobserved while the other is awaited.
    const [completing, reporting] = await Promise.allSettled([
      completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-same', workerId: 'worker-a', outcome: 'completed', token: tokenOf(old, 'wf-same') }),
      reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-same', workerId: 'worker-a', token: tokenOf(old, 'wf-same') }),
    ]);

    // Assess
    expect(completing).toMatchObject({ status: 'rejected', reason: expect.any(InvalidTokenError) });
    expect(reporting).toMatchObject({ status: 'rejected', reason: expect.any(InvalidTokenError) });
    expect(await m.getJob('job-1')).toEqual(before);
  });

  it("the old job's token for a workflow the new job does not have → invalid_token; the new job does not complete", async () => {
    // Prepare
    const { old } = await reusedId();

    // Act
    const completing = completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-old', workerId: 'worker-a', outcome: 'completed', token: tokenOf(old, 'wf-old') });

    // Assess
    await expect(completing).rejects.toBeInstanceOf(InvalidTokenError);
    expect((await m.getJob('job-1')).status).toBe('RUNNING');
  });

  it("the new job's view lists only its own workflows, and its tokens work", async () => {
    // Prepare
    const { fresh } = await reusedId();

    // Act
    const view = await getJob(m.deps, 'job-1');
    const done = await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-same', workerId: 'worker-a', outcome: 'completed', token: tokenOf(fresh, 'wf-same') });

    // Assess
    expect(view.workflows.map((w) => w.workflowId)).toEqual(['wf-same', 'wf-new']);
    expect(done).toMatchObject({ state: 'completed', jobStatus: 'RUNNING' });
  });

  it('a leftover workflow item of the old job is not found through a token signed for the new job', async () => {
    // Prepare: a token that names the new job's incarnation but a workflow only the old job had
    await reusedId();
    const incarnation = (await m.getJob('job-1')).incarnation;
    const forged = m.deps.tokens.sign('job-1', 'wf-old', 'worker-a', incarnation);

    // Act
    const completing = completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-old', workerId: 'worker-a', outcome: 'completed', token: forged });

    // Assess
    await expect(completing).rejects.toBeInstanceOf(WorkflowNotFoundError);
    expect((await m.getJob('job-1')).workflowMarks).toBe('aa');
  });

  it('a decision read from the old job, written after the id was reused, never replaces the new job, even at the same version', async () => {
    // Prepare: a handler read the old job; meanwhile it expired and the id was submitted again
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const readBeforeExpiry = await m.getJob('job-1');
    await expireJobItem(m, 'job-1');
    m.clock.set(at(10));
    await submit(m, { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-b' }] });
    const fresh = await m.getJob('job-1');
    expect(fresh.version).toBe(readBeforeExpiry.version);

    // Act: the late handler writes its decision on the version it read
    const late = m.jobs.saveJob({ ...readBeforeExpiry, status: 'CANCELLED', finishedAt: at(10) }, readBeforeExpiry.version);

    // Assess
    await expect(late).rejects.toBeInstanceOf(VersionConflictError);
    expect(await m.getJob('job-1')).toEqual(fresh);
  });

  it("a fresh budget of a worker of the old job never retires another worker's grant at the same index in the new job", async () => {
    // Prepare: worker-a held a grant on the old job (index 0); the id is reused, worker-b's first grant there takes index 0
    const old = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-old', workerId: 'worker-a' }] });
    await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(old, 'wf-old'), currentProgress: 0.1 });
    await cancelJob(m.deps, 'job-1', 'done with it');
    await expireJobItem(m, 'job-1');
    m.clock.set(at(10));
    const fresh = await submit(m, { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-new', workerId: 'worker-b' }] });
    const granted = await requestExtension(m.deps, { workerId: 'worker-b', token: tokenOf(fresh, 'wf-new'), currentProgress: 0.1 });
    const before = await m.getJob('job-1');

    // Act: worker-a gets a fresh budget (it failed and came back): its grants stop counting everywhere
    await retireWorkerGrantsEverywhere(m.deps, 'worker-a', 1);

    // Assess: worker-b's grant still moves the new job's deadline
    expect(granted).toMatchObject({ granted: true });
    const after = await m.getJob('job-1');
    expect(after.tracking.workerGrants).toEqual(before.tracking.workerGrants);
    expect(effectiveDeadline(after.tracking)).toBe(effectiveDeadline(before.tracking));
  });

  it("a workflow of the old job, still in its worker's index, never lets that worker's extension move the new job's deadline", async () => {
    // Prepare: job-1 (worker-a) is cancelled, so its workflow stays in worker-a's index; its item expires
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-old', workerId: 'worker-a' }] });
    await cancelJob(m.deps, 'job-1', undefined);
    await expireJobItem(m, 'job-1');
    m.clock.set(at(10));
    // job-1 again, with worker-b only, at the same workflow index; worker-a works on job-2
    await submit(m, { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-new', workerId: 'worker-b' }] });
    const other = await submit(m, { jobId: 'job-2', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(20));
    // Act
    const granted = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(other, 'wf-1'), currentProgress: 0.2 });
    // Assess
    expect(granted.granted).toBe(true);
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(30);
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(0);
  });
});
