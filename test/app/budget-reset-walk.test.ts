import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../shared/app/detection-bound.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { liveEffectiveDeadline } from '../../shared/domain/worker-extensions.js';
import { retiredGrantsOf } from '../../shared/app/retired-grants.js';
import { at, T0 } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * The byWorker index not yet listing a grant record (a GSI lags the table on AWS), or equally a crash
 * between a budget reset's worker write and its walk: the reset's retiring walk reaches no job.
 */
class UnlistedGrantsStore extends DynamoJobStore {
  hideGrants = false;
  /** Counts down index reads; the one that reaches 0 crashes (a Lambda cut off midway). */
  crashOnIndexRead = 0;
  override async findWorkOfWorker(workerId: string) {
    if (this.crashOnIndexRead > 0 && --this.crashOnIndexRead === 0) throw new Error('the Lambda was cut off');
    const work = await super.findWorkOfWorker(workerId);
    return this.hideGrants ? { ...work, grants: [] } : work;
  }
}

describe('a fresh budget whose walk would miss the job: the bound still runs from the reset (a review finding; README "Detection bound") (dynalite)', () => {
  let store: UnlistedGrantsStore;
  const m: TestManager = useTestManager({ store: (doc, table) => (store = new UnlistedGrantsStore(doc, table)) });

  it('two workers with full budgets finish their parts just after the job\'s own timeout: the job ends within 70 s of that moment', async () => {
    const workers = ['worker-a', 'worker-b', 'worker-c'];
    const submitted = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      stuckThresholdSeconds: 10_000,
      workflows: workers.map((w) => ({ workflowId: `wf-${w}`, workerId: w })),
    });
    // worker-a and worker-b each take a full budget (5 grants, 58.125 s) at 15, 25 … 55 s.
    for (let i = 1; i <= 5; i++) {
      for (const w of ['worker-a', 'worker-b']) {
        m.clock.set(at(i * 10 + 5));
        const answer = await requestExtension(m.deps, { workerId: w, token: tokenOf(submitted, `wf-${w}`), currentProgress: i / 10 });
        expect(answer.granted).toBe(true);
      }
    }
    // Both still report (heartbeats) right before the job's own wake-up at 60 s: not due (grants), re-armed.
    m.clock.set(at(59.9));
    for (const w of ['worker-a', 'worker-b']) await reportProgress(m.deps, { jobId: 'job-1', workflowId: `wf-${w}`, workerId: w, token: tokenOf(submitted, `wf-${w}`) });
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // 61 s: both finish their parts; their budgets reset, so their grants stop counting (AD-26 reset).
    m.clock.set(at(61));
    const resetAt = m.clock.now();
    store.hideGrants = true;
    for (const w of ['worker-a', 'worker-b']) {
      await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: `wf-${w}`, workerId: w, outcome: 'completed', token: tokenOf(submitted, `wf-${w}`) });
    }
    store.hideGrants = false;
    const job = await m.getJob('job-1');
    const trueDeadline = liveEffectiveDeadline(job, await retiredGrantsOf(m.deps, job));
    expect(trueDeadline).toBe(at(60)); // the grants no longer count: the deadline is in the past
    // Every wake-up delivered on time, and the sweep every minute, until the bound from the reset.
    let lastSweep = T0;
    for (let t = resetAt; t <= resetAt + DETECTION_BOUND_MS; t += 1_000) {
      m.clock.set(t);
      if (t - lastSweep >= SWEEP_INTERVAL_MS) { lastSweep = t; await sweepJobTimers(m.deps); }
      const timer = m.timers.current('job-1');
      if (timer && timer.dueAt <= t) await fireJobTimer(m.deps, timer);
    }
    const after = await m.getJob('job-1');
    const dueAfterReset = ((after.timerDueAt ?? 0) - resetAt) / 1000;
    expect(after.status, `still RUNNING ${DETECTION_BOUND_MS / 1000} s after the reset; its next wake-up is ${dueAfterReset} s after it`).toBe('TIMED_OUT');
  });

  it('a completion cut off between its budget reset and its walk: the repeat the SDK sends walks again, and the job wakes at the deadline that stands', async () => {
    // Prepare: worker-a takes two grants (45 s) on a 60 s job that worker-c keeps running
    const submitted = await submit(m, {
      jobId: 'job-2',
      timeoutSeconds: 60,
      stuckThresholdSeconds: 10_000,
      workflows: ['worker-a', 'worker-c'].map((w) => ({ workflowId: `wf-${w}`, workerId: w })),
    });
    const token = tokenOf(submitted, 'wf-worker-a');
    for (const [t, progress] of [[20, 0.2], [40, 0.4]] as const) {
      m.clock.set(at(t));
      expect((await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: progress })).granted).toBe(true);
    }
    // The job's own wake-up at 60 s: the grants count, so it re-arms for 105 s
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-2'));
    expect(m.timers.current('job-2')?.dueAt).toBe(at(105));
    // Act: worker-a finishes at 61 s; the call saves the fresh budget, then dies on the walk's index read (the second)
    m.clock.set(at(61));
    const complete = () => completeWorkflow(m.deps, { jobId: 'job-2', workflowId: 'wf-worker-a', workerId: 'worker-a', outcome: 'completed', token });
    store.crashOnIndexRead = 2;
    await expect(complete()).rejects.toThrow('cut off');
    expect(m.timers.current('job-2')?.dueAt).toBe(at(105));
    await complete();
    // Assess: the grants stopped counting, so the job's deadline (60 s) is past: it wakes now and times out
    const timer = m.timers.expectArmed('job-2');
    expect(timer.dueAt).toBeLessThanOrEqual(at(61));
    await fireJobTimer(m.deps, timer);
    expect((await m.getJob('job-2')).status).toBe('TIMED_OUT');
  });
});
