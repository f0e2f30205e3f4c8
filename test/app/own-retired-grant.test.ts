import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { retiredGrantsOf } from '../../shared/app/retired-grants.js';
import { liveEffectiveDeadline } from '../../shared/domain/worker-extensions.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * The byWorker index not yet listing a grant record (a GSI lags the table on AWS; the same model as
 * test/app/budget-reset-walk.test.ts), so a fresh budget's retiring walk misses the job. README: "a
 * job's wake-up also ignores the grants of workers that have failed or reset since, in case that walk
 * was cut short", and docs/api.md: "A job past its effective deadline is owed its timeout ... no grant
 * moves its deadline".
 */
class UnlistedGrantsStore extends DynamoJobStore {
  hideGrants = false;
  override async findWorkOfWorker(workerId: string) {
    const work = await super.findWorkOfWorker(workerId);
    return this.hideGrants ? { ...work, grants: [] } : work;
  }
}

describe('AD-26: a job past its real deadline takes no grant, even when the only grant it holds is the asking worker\'s own retired one (dynalite)', () => {
  let store: UnlistedGrantsStore;
  const m: TestManager = useTestManager({ store: (doc, table) => (store = new UnlistedGrantsStore(doc, table)) });

  it('worker-a\'s old-budget grant on job-1 stopped counting when it failed and recovered; its new grant (asked with job-2\'s token) must not revive job-1', async () => {
    // job-1 (100 s) and job-2 (1,000 s), worker-a in both.
    const job1 = await submit(m, { jobId: 'job-1', timeoutSeconds: 100, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const job2 = await submit(m, { jobId: 'job-2', timeoutSeconds: 1_000, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // 0 s: one grant (30 s) on both jobs; job-1's deadline 130 s.
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job1, 'wf-1'), currentProgress: 0.1 })).toMatchObject({ granted: true, extensionSeconds: 30 });
    // worker-a falls silent: health deadline 61 s, failed after 91 s. At 101 s it reports again on job-2:
    // a fresh budget, whose retiring walk misses both jobs (the index lags).
    m.clock.set(at(101));
    store.hideGrants = true;
    await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', token: tokenOf(job2, 'wf-1') });
    store.hideGrants = false;
    expect((await m.jobs.getWorker('worker-a'))?.budget.epoch).toBe(1);
    // job-1 as it really stands: its only grant is of a budget replaced since, so its deadline is 100 s: past.
    const stored = await m.getJob('job-1');
    expect(liveEffectiveDeadline(stored, await retiredGrantsOf(m.deps, stored))).toBe(at(100));
    // 102 s: worker-a asks with job-2's token (job-2 is fine); job-1's wake-up (armed for 100 s) is still on its way.
    m.clock.set(at(102));
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job2, 'wf-1'), currentProgress: 0.2 });
    expect(answer).toMatchObject({ granted: true });
    m.clock.set(at(102.5));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // job-1 was owed its timeout at 100 s: the new grant must not have moved its deadline.
    const job = await m.getJob('job-1');
    expect({ status: job.status, total: job.tracking.totalExtensionsGranted }).toEqual({ status: 'TIMED_OUT', total: 0 });
  });
});
