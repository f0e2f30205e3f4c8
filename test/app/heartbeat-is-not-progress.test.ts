import { beforeEach, describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { getJob } from '../../shared/app/get-job.js';
import { currentWorkerHealth } from '../../shared/app/current-worker-health.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, writesByItem, type TestManager } from './support/test-manager.js';

// (seed 000, problem 4: "worker heartbeat OK but workflow stuck"). A call whose
// progress does not advance is a heartbeat: it keeps the worker healthy, never the job.

type Report = { progress?: number; step?: string | number };

/**
 * For the calling describe block: a fresh manager with job-1 (one workflow of worker-a, a long
 * timeout) before each test, and `report(seconds, body)` as that worker's progress call at T0 + seconds.
 */
function useReportingJob(stuckThresholdSeconds: number): { m: TestManager; report: (seconds: number, report?: Report) => ReturnType<typeof reportProgress> } {
  const body = { jobId: 'job-1', timeoutSeconds: 3_600, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };
  const m = useTestManager();
  let token: string;
  beforeEach(async () => {
    token = tokenOf(await submit(m, body), 'wf-1');
  });
  const report = (seconds: number, report: Report = {}) => {
    m.clock.set(at(seconds));
    return reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token, ...report });
  };
  return { m, report };
}

describe('a heartbeat keeps the worker healthy but does not reset the stuck clock (dynalite)', () => {
  // Stuck threshold 10 s → coalescing window 0.5 s → stuck deadline lastProgressAt + 10.5 s.
  const { m, report } = useReportingJob(10);

  /** Fires every wake-up the job asks for until it ends or `untilSeconds`; returns the job. */
  async function runTimersUntil(untilSeconds: number) {
    for (let fired = 0; fired < 20; fired++) {
      const timer = m.timers.current('job-1');
      if (!timer || timer.dueAt > at(untilSeconds)) break;
      m.clock.set(timer.dueAt);
      await fireJobTimer(m.deps, timer);
    }
    return m.getJob('job-1');
  }

  it('a worker heartbeating with an unchanged value is timed out as stuck, threshold + window after its last real progress', async () => {
    // Prepare: one real advance at 1 s, then the same value every 2 s
    await report(1, { progress: 0.3 });
    for (let seconds = 3; seconds <= 11; seconds += 2) await report(seconds, { progress: 0.3 });
    // Act
    const job = await runTimersUntil(60);
    // Assess
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking.timeoutReason).toBe('stuck');
    expect(job.finishedAt).toBe(at(11.5));
    expect(job.tracking.lastProgressAt).toBe(at(1));
  });

  it('a call without any progress value is a heartbeat: the worker is healthy, the job still times out as stuck', async () => {
    // Prepare
    for (let seconds = 2; seconds <= 10; seconds += 2) await report(seconds);
    // Act
    const job = await runTimersUntil(60);
    // Assess
    expect(job).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(10.5) });
    expect(job.tracking.timeoutReason).toBe('stuck');
    // The workflow's heartbeat writes carry the worker's health (its item is written once, at the first call).
    expect((await currentWorkerHealth(m.deps, 'worker-a'))?.lastHealthAt).toBe(at(10));
  });

  it('a progress value greater than the last one resets the stuck clock; a lower one is a heartbeat and is not stored', async () => {
    // Prepare
    await report(1, { progress: 0.5 });
    await report(6, { progress: 0.6 });
    await report(8, { progress: 0.4 });
    // Act
    const job = await runTimersUntil(60);
    // Assess
    expect(job.finishedAt).toBe(at(16.5));
    expect((await m.jobs.getWorkflow('job-1', 'wf-1'))?.progress).toBe(0.6);
  });

  it('a changed step is progress, whatever the progress value; the same step again is a heartbeat', async () => {
    // Prepare
    await report(1, { step: 'download' });
    await report(5, { step: 'download' });
    await report(7, { step: 'transform', progress: 0.1 });
    await report(9, { step: 3 });
    await report(15, { step: 3 });
    // Act
    const job = await runTimersUntil(60);
    // Assess
    expect(job.finishedAt).toBe(at(19.5));
    expect(await m.jobs.getWorkflow('job-1', 'wf-1')).toMatchObject({ step: '3', lastProgressAt: at(9) });
  });

  it('the answer says whether the call was progress, and when the job is stuck without more', async () => {
    // Prepare
    const advanced = await report(2, { progress: 0.2 });
    // Act
    const heartbeat = await report(4, { progress: 0.2 });
    // Assess
    expect(advanced).toMatchObject({ status: 'RUNNING', cancel: false, progressed: true, stuckAt: new Date(at(12.5)).toISOString() });
    expect(heartbeat).toMatchObject({ status: 'RUNNING', cancel: false, progressed: false, stuckAt: new Date(at(12.5)).toISOString() });
  });

  // Contract review: the contract's workflow states are running|completed|failed|cancelled, each with
  // its lastProgressAt; one that had not reported yet was "pending", with none.
  it('a workflow that has not reported yet is running, its lastProgressAt the job\'s start', async () => {
    // Act
    const view = await getJob(m.deps, 'job-1');
    // Assess
    expect(view.workflows).toEqual([expect.objectContaining({ workflowId: 'wf-1', state: 'running', lastProgressAt: view.timeoutTracking.startedAt, stuck: false })]);
  });

  it('a workflow that only heartbeats is running, and listed as stuck once past the threshold and its window', async () => {
    // Prepare
    await report(1);
    await report(10.6);
    // Act
    const view = await getJob(m.deps, 'job-1');
    // Assess
    expect(view.workflows).toEqual([
      expect.objectContaining({ workflowId: 'wf-1', state: 'running', stuck: true, lastHeartbeatAt: new Date(at(10.6)).toISOString() }),
    ]);
    // Never progressed: its stuck clock runs from the job's start, which is what it shows.
    expect(view.workflows[0]?.lastProgressAt).toBe(view.timeoutTracking.startedAt);
  });
});

describe('repeated and concurrent callers (dynalite)', () => {
  const { m, report } = useReportingJob(10);

  it('concurrent calls with different values leave the highest stored, whatever order their writes land in', async () => {
    // Prepare
    m.clock.set(at(2));
    // Act
    await Promise.all([0.3, 0.7, 0.5, 0.7, 0.1].map((progress) => report(2, { progress })));
    // Assess
    expect((await m.jobs.getWorkflow('job-1', 'wf-1'))?.progress).toBe(0.7);
  });

  it('a retried call (same body again) is a heartbeat the second time', async () => {
    // Prepare
    const first = await report(2, { progress: 0.4, step: 7 });
    // Act
    const retried = await report(3, { progress: 0.4, step: 7 });
    // Assess
    expect([first.progressed, retried.progressed]).toEqual([true, false]);
    expect(await m.jobs.latestWorkflowProgressAt('job-1', (await m.getJob('job-1')).incarnation)).toBe(at(2));
  });
});

describe('advances inside the coalescing window (dynalite)', () => {
  // Stuck threshold 120 s → coalescing window 5 s.
  const { m, report } = useReportingJob(120);

  it('a rise in progress within the window of the stored clock is answered as progress and not written; the stuck time it promises is never early', async () => {
    // Prepare: 0.3 at 5 s is written; 0.4 at 7 s is inside the window
    await report(5, { progress: 0.3 });
    m.calls.length = 0;
    // Act
    const answer = await report(7, { progress: 0.4 });
    // Assess
    expect(writesByItem(m.calls).filter((item) => item === 'WF' || item === 'JOB')).toEqual([]);
    expect(answer.progressed).toBe(true);
    expect(await m.jobs.getWorkflow('job-1', 'wf-1')).toMatchObject({ progress: 0.3, lastProgressAt: at(5) });
    expect(Date.parse(answer.stuckAt ?? 'missing')).toBeGreaterThanOrEqual(at(7 + 120));
  });

  it('a new step within the window is always written: a step is compared for equality, so it must be the stored one', async () => {
    // Prepare
    await report(5, { step: 'download' });
    // Act
    await report(6, { step: 'transform' });
    await report(7, { step: 'download' });
    // Assess
    expect(await m.jobs.getWorkflow('job-1', 'wf-1')).toMatchObject({ step: 'download', lastProgressAt: at(7) });
  });

  it('a rise that was not written and is repeated a window later is credited at the repeat, once: the job is stuck one window after it at most', async () => {
    // Prepare
    await report(5, { progress: 0.3 });
    await report(7, { progress: 0.4 });
    // Act
    const credited = await report(11, { progress: 0.4 });
    const repeated = await report(13, { progress: 0.4 });
    // Assess
    expect([credited.progressed, repeated.progressed]).toEqual([true, false]);
    expect(await m.jobs.getWorkflow('job-1', 'wf-1')).toMatchObject({ progress: 0.4, lastProgressAt: at(11) });
    // Never stuck early (the last real advance was at 7 s), at most one window late after the repeat.
    for (let fired = 0; fired < 20; fired++) {
      const timer = m.timers.current('job-1');
      if (!timer) break;
      m.clock.set(timer.dueAt);
      await fireJobTimer(m.deps, timer);
    }
    const job = await m.getJob('job-1');
    expect(job).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(11 + 120 + 5) });
  });
});
