import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { grantOf } from '../../shared/domain/worker-extensions.js';
import { at } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { jobWithSilentGrantHolder, workerBTakesItsWholeBudget } from './support/silent-grant-job.js';
import { useTestManager } from './support/test-manager.js';

/**
 * A job's wake-up reads which grants no longer count (`grantsInForce`: a failed worker's, all of them)
 * and then decides; a lost race makes it decide again on the job as reloaded, with the same list. A
 * worker that recovered meanwhile (a fresh budget) and was granted an extension from it had that
 * grant on the job when the wake-up decided again: the list, read while the worker was failed, took
 * it off too, though the worker had been told it was granted.
 */
describe('a grant from a fresh budget made while a wake-up decides (dynalite)', () => {
  const m = useTestManager({ store: (doc, tableName) => new InterleavingJobStore(doc, tableName) });

  it('the wake-up that read the worker failed, losing its write to the recovery and the grant, leaves the new grant on the job', async () => {
    // Prepare: own timeout 60 s, stuck threshold 600 s. worker-a is granted 30 s at 0 s and falls
    // silent (failed from 91.001 s); worker-b makes progress and takes its whole budget (58.125 s).
    const { tokenA, tokenB } = await jobWithSilentGrantHolder(m, 60);
    await workerBTakesItsWholeBudget(m, tokenB);
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const lapseCheck = m.timers.expectArmed('job-1');
    m.clock.set(at(92));
    // Between the wake-up's reads and its write: worker-a reports (it recovers, with a fresh budget)
    // and is granted 30 s from that budget.
    let answer: Awaited<ReturnType<typeof requestExtension>> | undefined;
    (m.jobs as InterleavingJobStore).beforeNextSave(async () => {
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', token: tokenA, progress: 0.2 });
      answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenA, currentProgress: 0.2 });
    });

    // Act
    await fireJobTimer(m.deps, lapseCheck);

    // Assess: worker-a was told 30 s were granted, and the job holds them: 60 + 30 + 58.125 s.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    const job = await m.getJob('job-1');
    expect(grantOf(job, 0)).toMatchObject({ epoch: 1, count: 1, seconds: 30 });
    expect(job.tracking.totalExtensionsGranted).toBe(88.125);
  });
});
