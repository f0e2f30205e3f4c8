import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import type { Job } from '../../shared/domain/job.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { startTestDynamo } from '../support/dynalite.js';
import { at } from '../support/fixtures.js';
import { submit, testManager, tokenOf, type TestDynamo, type TestManager } from '../app/support/test-manager.js';

/**
 * The real store, except that the next job write can lose its answer: the conditional Put is
 * applied, then the caller sees ConditionalCheckFailed, which is what the AWS SDK's own retry of a
 * committed write returns after a timeout, a reset connection or a 500 (the default DynamoDBClient of
 * shared/wiring/aws-clients.ts retries up to 3 times).
 */
class LostAnswerStore extends DynamoJobStore {
  loseNextSaveAnswer = false;

  override async saveJob(job: Job, expectedVersion: number): Promise<Job> {
    const stored = await super.saveJob(job, expectedVersion);
    if (this.loseNextSaveAnswer) {
      this.loseNextSaveAnswer = false;
      throw new VersionConflictError(`JOB#${job.jobId}/JOB (the retry of a write that already happened)`);
    }
    return stored;
  }
}

const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('review: crash and restart resumption on the job side (dynalite)', () => {
  let dynamo: TestDynamo;
  let m: TestManager;
  let store: LostAnswerStore;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    m = await testManager(dynamo, { store: (doc, tableName) => new LostAnswerStore(doc, tableName) });
    store = m.jobs as LostAnswerStore;
  });

  it('a takeover whose committed write is retried by the SDK raises the fence token by exactly one (contract: → n+1)', async () => {
    // Prepare
    await submit(m, body);
    store.loseNextSaveAnswer = true;
    // Act
    const answer = await takeOverJob(m.deps, 'job-1');
    // Assess
    expect(answer.fenceToken).toBe(2);
    expect((await m.getJob('job-1')).tracking.fenceToken).toBe(2);
  });

  it('a cancel whose committed write is retried by the SDK answers CANCELLED, not 409 for the change it made itself', async () => {
    // Prepare
    await submit(m, body);
    store.loseNextSaveAnswer = true;
    // Act
    const answer = cancelJob(m.deps, 'job-1', undefined);
    // Assess
    await expect(answer).resolves.toEqual({ jobId: 'job-1', status: 'CANCELLED' });
  });

  it("a workflow of an earlier job with the same id, still in the worker index, never extends the new job's deadline", async () => {
    // Prepare: job-x (worker-a) is cancelled, so its workflow stays in worker-a's index; its item expires
    await submit(m, { jobId: 'job-x', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-old', workerId: 'worker-a' }] });
    await cancelJob(m.deps, 'job-x', undefined);
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-x', sk: 'JOB' } }));
    m.clock.set(at(10));
    // job-x again, with worker-b only; worker-a works on job-y
    await submit(m, { jobId: 'job-x', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-new', workerId: 'worker-b' }] });
    const other = await submit(m, { jobId: 'job-y', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(20));
    // Act
    const granted = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(other, 'wf-1'), currentProgress: 0.2 });
    // Assess
    expect(granted.granted).toBe(true);
    expect((await m.getJob('job-y')).tracking.totalExtensionsGranted).toBe(30);
    expect((await m.getJob('job-x')).tracking.totalExtensionsGranted).toBe(0);
  });
});
