import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * 050331b re-keyed the budget's per-job progress from `jobId` to `jobId@incarnation`
 * (extension-budget.ts). Budgets stored before that deploy still hold the old key: a worker mid-flight
 * then has no "previous progress" on its own job (0), so its next request passes the "no progress
 * since the last grant" rule with exactly the progress it was last granted at (docs/api.md: "denied
 * without progress since the last grant").
 */
describe('a budget stored before the progress key change keeps the no-progress rule (dynalite)', () => {
  const m = useTestManager();

  it('worker-a granted at 0.5 before the upgrade is denied again at 0.5 after it', async () => {
    const job = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job, 'wf-1'), currentProgress: 0.5 })).toMatchObject({ granted: true });
    // The budget as the code before 050331b wrote it: progress keyed by the job id alone.
    const { Item } = await m.dynamo.doc.send(new GetCommand({ TableName: m.tableName, Key: { pk: 'WORKER#worker-a', sk: 'WORKER' } }));
    const budget = Item?.['budget'] as Record<string, unknown>;
    expect(budget['lastProgressJobId']).toMatch(/^job-1@/); // written by the new code
    const before = { ...budget, lastProgressJobId: 'job-1', progressByJob: { 'job-1': 0.5 } };
    await m.dynamo.doc.send(
      new UpdateCommand({ TableName: m.tableName, Key: { pk: 'WORKER#worker-a', sk: 'WORKER' }, UpdateExpression: 'SET budget = :b', ExpressionAttributeValues: { ':b': before } }),
    );
    m.clock.set(at(5));
    // Act: the same progress again, after the deploy
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job, 'wf-1'), currentProgress: 0.5 });
    // Assess: no progress since the last grant: denied, as before the deploy
    expect(answer).toMatchObject({ granted: false });
  });
});
