import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { describe, expect, it } from 'vitest';
import { requestExtension } from '../../shared/app/request-extension.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { loseNextAnswer } from './support/lose-write-answer.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';
import { DynamoPoolStore } from '../../shared/adapters/aws/dynamo-pool-store.js';
import { retryDeadLetter } from '../../shared/app/pools/dead-letters.js';
import { claimPoolItem } from '../../shared/app/pools/claim-item.js';
import { firePoolTimer } from '../../shared/app/pools/fire-pool-timer.js';
import { getPool } from '../../shared/app/pools/get-pool.js';
import { itemTimerId } from '../../shared/domain/pools/pool-item.js';
import { at } from '../support/fixtures.js';
import { claim, newPool, refusal, send } from './pools/pool-test-support.js';

// Review findings (crashes and races): a create whose answer was lost read as someone else's; a completion
// counted before a redrive completed a pool over a claimable item; a resend's workflow left its worker's index.
describe('a create whose answer was lost is recognised too', () => {
  const m = useTestManager();
  const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

  it("a worker's first extension (its item created by the grant) answers granted when the create's answer was lost", async () => {
    // Prepare: no report yet, so the worker has no item: the grant's budget write creates it
    const submitted = await submit(m, body);
    const undo = loseNextAnswer(m.doc, 'PutItemCommand', 'WORKER');
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.2 }).finally(undo);
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
  });

  it("a job's first submit whose create answer was lost answers created (201) and arms the job's timer", async () => {
    // Prepare
    const undo = loseNextAnswer(m.doc, 'PutItemCommand', 'JOB');
    // Act
    const answer = await submitJob(m.deps, body).finally(undo);
    // Assess
    expect(answer.created).toBe(true);
    expect(m.timers.armed('job-1')).not.toHaveLength(0);
  });
});

describe('pools on dynalite: a completion check racing a dead letter\'s retry', () => {
  const m = useTestManager();

  /** The real store; the next read of the pool's item states lets a competitor run to completion after it. */
  class CountThenCompete extends DynamoPoolStore {
    competitor: (() => Promise<unknown>) | undefined;
    override async itemStates(poolId: string, from: 'index' | 'table') {
      const counts = await super.itemStates(poolId, from);
      const competitor = this.competitor;
      this.competitor = undefined;
      if (competitor) await competitor();
      return counts;
    }
  }

  it('a dead letter retried while a GET repairs the pool\'s completion is claimable afterwards (the pool never completes over it)', async () => {
    // Prepare: i-2 succeeded; i-1 timed out into the DLQ, and the completion its follow-up owed crashed: RUNNING, all settled
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } }, ['i-1', 'i-2']);
    const a = await claim(m.deps, 'agent-a');
    const b = await claim(m.deps, 'agent-b');
    const [late, done] = a.itemId === 'i-1' ? [a, b] : [b, a];
    await send(m.deps, done, { type: 'complete', outcome: 'succeeded' });
    m.clock.set(at(10));
    const crashing = { ...m.deps, pools: Object.assign(Object.create(Object.getPrototypeOf(m.deps.pools) as object), m.deps.pools, { savePool: () => Promise.reject(new Error('crashed')) }) };
    await refusal(firePoolTimer(crashing, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: late.attempt, dueAt: at(10) }));
    expect((await m.deps.pools.getItem('p', 'i-1'))?.state).toBe('dlq');
    expect((await m.deps.pools.getPool('p'))?.status).toBe('RUNNING');
    // Act: a GET /pools counts (all settled); before it writes COMPLETED, an operator retries i-1
    const store = new CountThenCompete(m.doc, m.tableName);
    store.competitor = () => retryDeadLetter(m.deps, 'p', 'i-1', undefined);
    await getPool({ ...m.deps, pools: store }, 'p');
    // Assess: the retried item is worked again, or the pool is left open for it
    const pool = await getPool(m.deps, 'p');
    expect((await m.deps.pools.getItem('p', 'i-1'))?.state).toBe('available');
    expect(pool.status).toBe('RUNNING');
    expect(await claimPoolItem(m.deps, 'p', { agentId: 'agent-c', kind: 'agent' })).toMatchObject({ itemId: 'i-1' });
  });
});

describe('a job id reused: its resent submit racing an extension walk of the same worker', () => {
  /** The real job store; the next read of one workflow lets a competitor run to completion after it. */
  class WorkflowReadThenCompete extends DynamoJobStore {
    competitor: { jobId: string; run: () => Promise<unknown> } | undefined;
    override async getWorkflow(jobId: string, workflowId: string) {
      const read = await super.getWorkflow(jobId, workflowId);
      const competitor = this.competitor;
      if (competitor?.jobId === jobId) {
        this.competitor = undefined;
        await competitor.run();
      }
      return read;
    }
  }
  const m = useTestManager({ store: (doc, tableName) => new WorkflowReadThenCompete(doc, tableName) });

  it("the new job's workflow stays in its worker's index when the walk dropped the earlier job's item of the same key", async () => {
    // Prepare: job-1 ran for worker-a, was cancelled and its job item expired (its workflow item is still listed);
    // worker-a also runs job-2. job-1 is submitted again and crashes after its job item, before its workflows.
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-same', workerId: 'worker-a' }] });
    await cancelJob(m.deps, 'job-1', 'done with it');
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-1', sk: 'JOB' } }));
    const other = await submit(m, { jobId: 'job-2', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-2', workerId: 'worker-a' }] });
    m.clock.set(at(10));
    const again = { jobId: 'job-1', timeoutSeconds: 600, workflows: [{ workflowId: 'wf-same', workerId: 'worker-a' }] };
    const store = m.jobs as WorkflowReadThenCompete;
    const crashing = { ...m.deps, jobs: Object.assign(Object.create(Object.getPrototypeOf(store) as object), store, { putWorkflows: () => Promise.reject(new Error('crashed')) }) };
    await refusal(submitJob(crashing, again));
    // Act: worker-a asks for an extension; its walk reads job-1's listed workflow (the earlier job's), and the
    // client's resend of job-1 writes the new workflow item before the walk drops the listing
    store.competitor = { jobId: 'job-1', run: () => submitJob(m.deps, again) };
    await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(other, 'wf-2'), currentProgress: 0.2 });
    // Assess: the new job-1's workflow is worker-a's work, listed in its index
    const listed = (await m.jobs.findWorkOfWorker('worker-a')).workflows.map((w) => `${w.jobId}/${w.workflowId}`);
    expect(listed).toContain('job-1/wf-same');
  });
});
