import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

const COMPLETED = 200;
const CANCELLED = 100;

/** worker-a ran 300 jobs that are over (200 it completed, 100 cancelled under it) and runs one now. */
async function workerWithHistory(m: TestManager): Promise<string> {
  const body = (jobId: string) => ({ jobId, timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
  for (let i = 0; i < COMPLETED; i++) {
    const token = tokenOf(await submit(m, body(`done-${i}`)), 'wf-1');
    await completeWorkflow(m.deps, { jobId: `done-${i}`, workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token });
  }
  for (let i = 0; i < CANCELLED; i++) {
    await submit(m, body(`cancelled-${i}`));
    await cancelJob(m.deps, `cancelled-${i}`, undefined);
  }
  return tokenOf(await submit(m, body('job-now')), 'wf-1');
}

async function callsOf(m: TestManager, act: () => Promise<unknown>): Promise<number> {
  const before = m.calls.length;
  await act();
  return m.calls.length - before;
}

describe('a worker\'s request costs O(its active jobs), not O(every job it ever ran) (dynalite)', () => {
  const m = useTestManager();

  it('with 300 finished jobs behind it, an extension request costs a handful of DynamoDB calls', { timeout: 60_000 }, async () => {
    // Prepare
    const token = await workerWithHistory(m);
    const ask = (currentProgress: number) => requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress });
    // Act: the first request takes the 100 cancelled jobs' workflows out of the index, once
    const first = await callsOf(m, () => ask(0.1));
    const second = await callsOf(m, () => ask(0.2));
    // Assess: the token's job and workflow reads (its incarnation; is the workflow still active?), worker read, index query, job read, its listed
    // workflow read (the index does not carry the incarnation: is it this job's?), grant record, job
    // write, worker write, and the worker's health read from its listed workflows (an index query, a
    // batch read per 100); a workflow leaving the index is read first (its last call goes to the
    // worker), then removed
    expect(second).toBeLessThanOrEqual(11);
    expect(first).toBeLessThanOrEqual(10 + Math.ceil((CANCELLED + 1) / 100) + 3 * CANCELLED);
    expect((await m.getJob('job-now')).tracking.totalExtensionsGranted).toBe(45);
  });

  it('workflow items and grant records carry a TTL, so they expire after their job', async () => {
    // Prepare
    const token = tokenOf(await submit(m, { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }), 'wf-1');
    await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: 0.1 });
    // Act
    const ttlOf = async (sk: string) => {
      const { Item } = await m.dynamo.client.send(new GetItemCommand({ TableName: m.tableName, Key: { pk: { S: 'JOB#job-1' }, sk: { S: sk } } }));
      return Number(Item?.['expiresAt']?.N);
    };
    // Assess: later than the latest the job can end, and within the finished-job retention after it
    const latestEndSeconds = (at(600 + 58.125 + 300)) / 1000;
    for (const sk of ['WF#wf-1', 'GRANT#worker-a']) {
      const ttl = await ttlOf(sk);
      expect(ttl).toBeGreaterThan(latestEndSeconds);
      expect(ttl).toBeLessThanOrEqual(latestEndSeconds + 30 * 24 * 3600 + 1);
    }
  });
});
