import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { loseNextAnswer } from './support/lose-write-answer.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

const loseNextJobWriteAnswer = (doc: DynamoDBDocumentClient) => loseNextAnswer(doc, 'PutItemCommand', 'JOB');

// Review findings: a decision whose write landed but whose answer was lost was taken for someone
// else's write and decided again: a takeover raised the fence token by two and published two
// transfers; a cancel answered 409 for the change it had made itself; an extension was denied
// ("no progress") for the grant it had just made.
describe('a write whose answer was lost is not decided twice (dynalite, the SDK repeating the write)', () => {
  const m = useTestManager();
  const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

  it('a takeover raises the fence token by exactly one (contract: → n+1)', async () => {
    // Prepare
    await submit(m, body);
    const undo = loseNextJobWriteAnswer(m.doc);
    // Act
    const answer = await takeOverJob(m.deps, 'job-1').finally(undo);
    // Assess
    expect(answer.fenceToken).toBe(2);
    expect((await m.getJob('job-1')).tracking.fenceToken).toBe(2);
  });

  it('a cancel answers CANCELLED, not 409 for its own change', async () => {
    // Prepare
    await submit(m, body);
    const undo = loseNextJobWriteAnswer(m.doc);
    // Act
    const answer = await cancelJob(m.deps, 'job-1', undefined).finally(undo);
    // Assess
    expect(answer).toEqual({ jobId: 'job-1', status: 'CANCELLED' });
    expect((await m.getJob('job-1')).status).toBe('CANCELLED');
  });

  it("an extension whose worker budget write was repeated answers granted, and the budget counts it once", async () => {
    // Prepare: the worker's item exists (its first report)
    const submitted = await submit(m, body);
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.1, token: tokenOf(submitted, 'wf-1') });
    const undo = loseNextAnswer(m.doc, 'UpdateItemCommand', 'WORKER');
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.2 }).finally(undo);
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
  });
});
