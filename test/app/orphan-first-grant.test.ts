import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import type { WorkerHealth } from '../../shared/domain/worker-health.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/** The real store, except that the next worker write fails as a crash would (as test/app/orphan-grant-after-idle-reset.test.ts). */
class StoreThatFailsOneWorkerWrite extends DynamoJobStore {
  failNextWorkerWrite = false;
  override async saveWorker(worker: WorkerHealth, expectedVersion: number): Promise<WorkerHealth> {
    if (this.failNextWorkerWrite) {
      this.failNextWorkerWrite = false;
      throw new Error('the process died before the worker budget was written');
    }
    return super.saveWorker(worker, expectedVersion);
  }
}

/**
 * 050331b: "an idle reset retires a grant its budget never counted" (reset-budget-when-idle.ts,
 * `listedGrants`). docs/api.md allows an extension request as a worker's first call. When that first
 * request crashes after the grant reached the job but before the budget write (which is the worker
 * item's creation), no worker item exists: the completion's reset returns at `if (!worker) return`
 * before it looks at the listed grant, and retired-grants.ts counts a grant of a worker without an
 * item. The job then outlives its deadline on the grant of a worker that finished its part.
 */
describe('an uncounted first grant of a worker with no item is retired when it goes idle (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new StoreThatFailsOneWorkerWrite(doc, tableName) });

  it("worker-a's first call is an extension that crashes before the budget write; after worker-a completes, job-1 still times out at its own 60 s", async () => {
    const submitted = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      stuckThresholdSeconds: 100_000,
      workflows: [
        { workflowId: 'wf-a', workerId: 'worker-a' },
        { workflowId: 'wf-c', workerId: 'worker-c' },
      ],
    });
    const tokenA = tokenOf(submitted, 'wf-a');
    m.clock.set(at(10));
    (m.jobs as StoreThatFailsOneWorkerWrite).failNextWorkerWrite = true;
    await expect(requestExtension(m.deps, { workerId: 'worker-a', token: tokenA, currentProgress: 0.3 })).rejects.toThrow(/died/);
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
    m.clock.set(at(20));
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', outcome: 'completed', token: tokenA });
    // The completion writes the worker's first item, with a fresh budget that retires the uncounted grant.
    expect((await m.jobs.getWorker('worker-a'))?.budget).toMatchObject({ epoch: 1, count: 0 });
    m.clock.set(at(55));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-c', workerId: 'worker-c', token: tokenOf(submitted, 'wf-c'), progress: 0.5 });
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const job = await m.getJob('job-1');
    expect({ status: job.status, total: job.tracking.totalExtensionsGranted }).toEqual({ status: 'TIMED_OUT', total: 0 });
  });
});
