import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * docs/api.md: past its health deadline + 30 s a worker "is failed and its grants stop counting on every
 * job". The wake-up ignores a failed worker's grant (retired-grants.ts); the answers, which read the job
 * item only, count it until the wake-up drops it (a review finding; docs/api.md says so).
 */
describe('the deadline a job\'s owner and workers are told, beside the one its timer enforces (dynalite)', () => {
  const m = useTestManager();

  async function silentlyFailedGrant() {
    const submitted = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 100,
      stuckThresholdSeconds: 100_000,
      workflows: [
        { workflowId: 'wf-a', workerId: 'worker-a' },
        { workflowId: 'wf-b', workerId: 'worker-b' },
      ],
    });
    // 0 s: worker-b takes a 30 s grant (stored deadline 130 s), then falls silent: health deadline 61 s, failed after 91 s.
    expect(await requestExtension(m.deps, { workerId: 'worker-b', token: tokenOf(submitted, 'wf-b'), currentProgress: 0.1 })).toMatchObject({ granted: true });
    return submitted;
  }

  it("a progress answer after worker-b failed still counts its grant: later than the deadline enforced, never earlier", async () => {
    const submitted = await silentlyFailedGrant();
    for (const t of [30, 60, 95]) {
      m.clock.set(at(t));
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', token: tokenOf(submitted, 'wf-a'), progress: t / 1000 });
    }
    const told = await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', token: tokenOf(submitted, 'wf-a'), progress: 0.2 });
    m.clock.set(at(100));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(100) });
    // docs/api.md: later than the deadline enforced (it still counts worker-b's 30 s), never earlier.
    expect(Date.parse(told.deadlineAt)).toBe(at(130));
    expect(Date.parse(told.deadlineAt)).toBeGreaterThanOrEqual(at(100));
  });

  it("GET /jobs at 95 s still counts worker-b's grant, listed until the wake-up drops it: later than the deadline enforced, never earlier", async () => {
    await silentlyFailedGrant();
    m.clock.set(at(95));
    const view = await getJob(m.deps, 'job-1');
    m.clock.set(at(100));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(100) });
    expect({
      effectiveDeadlineAt: view.timeoutTracking.effectiveDeadlineAt,
      workerExtensions: view.timeoutTracking.workerExtensions.map((w) => w.workerId),
    }).toEqual({ effectiveDeadlineAt: new Date(at(130)).toISOString(), workerExtensions: ['worker-b'] });
  });
});
