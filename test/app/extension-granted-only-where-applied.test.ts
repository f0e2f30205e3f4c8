import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import type { WorkerGrantRecord } from '../../shared/domain/extension-ledger.js';
import { at } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * docs/api.md (POST /workers/{workerId}/extensions): "so is a request whose every job ended while it
 * was decided: a grant is answered only with a job it extended, and a denial spends nothing."
 * request-extension.ts counts a job as "applied" as soon as `applyGrantToJobs` visited it, whether the
 * job's decision took the grant or refused it (already terminal, deadline passed).
 */
describe('AD-26: a grant is answered only with a job it extended (dynalite)', () => {
  let store: InterleavingJobStore;
  const m = useTestManager({ store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });

  it('the only job is cancelled while the grant is being written: the request must be denied and spend nothing', async () => {
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // The job's cancel lands between the request's read of the job and its job write.
    store.beforeNextSave(() => cancelJob(sameTable(m), 'job-1', 'operator'));
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.3 });
    const job = await m.getJob('job-1');
    const budget = (await m.jobs.getWorker('worker-a'))?.budget;
    expect(job.status).toBe('CANCELLED');
    expect(job.tracking.totalExtensionsGranted).toBe(0);
    // Nothing was extended: no grant may be answered, and nothing may be spent.
    expect({ granted: answer.granted, spent: budget?.count ?? 0 }).toEqual({ granted: false, spent: 0 });
  });
});

/** The real store, except that a hook runs before the next grant record is written (a slow Lambda, a GC pause). */
class SlowGrantStore extends DynamoJobStore {
  beforeRecordGrant: (() => void) | undefined;
  override async recordGrant(record: WorkerGrantRecord): Promise<number> {
    const hook = this.beforeRecordGrant;
    this.beforeRecordGrant = undefined;
    hook?.();
    return super.recordGrant(record);
  }
}

describe('AD-26: a request checked just before the deadline whose job decision comes after it (dynalite)', () => {
  let store: SlowGrantStore;
  const m = useTestManager({ store: (doc, table) => (store = new SlowGrantStore(doc, table)) });

  it('is told "granted 30 s" and charged for it, while the job refused the grant and times out at its unextended deadline', async () => {
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // Asked 1 ms before the deadline (the token's job is not past it); the job is reached 1 ms after it.
    m.clock.set(at(59.999));
    store.beforeRecordGrant = () => m.clock.set(at(60.001));
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.3 });
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const job = await m.getJob('job-1');
    const budget = (await m.jobs.getWorker('worker-a'))?.budget;
    // The job refused the grant (deadline passed) and timed out: right.
    expect(job).toMatchObject({ status: 'TIMED_OUT', tracking: { totalExtensionsGranted: 0 } });
    // The worker must not be told it got 30 s more, nor be charged a grant that extended nothing.
    expect({ granted: answer.granted, extensionSeconds: answer.extensionSeconds, spent: budget?.count ?? 0 }).toEqual({ granted: false, extensionSeconds: 0, spent: 0 });
  });
});
