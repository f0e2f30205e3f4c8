import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// Long-sweep seed 8657: a takeover and a sweep at the same instant; the sweep read the timer index
// (a GSI, lagging the item) with the old fence, its wake-up was dropped as stale, and the job waited
// for the next sweep a minute later.
describe('a sweep that reads a lagging index entry still fires the job\'s own overdue wake-up (dynalite)', () => {
  const m = useTestManager();

  async function takenOverJob() {
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 1_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(10));
    await takeOverJob(m.deps, 'job-1');
    const job = await m.getJob('job-1');
    return { staleEntry: { scope: 'job' as const, jobId: 'job-1', fenceToken: job.tracking.fenceToken - 1, dueAt: job.timerDueAt ?? 0 } };
  }

  it('from the sweep, past the grace: the job times out under its current fence', async () => {
    // Prepare
    const { staleEntry } = await takenOverJob();
    m.clock.set(at(66));
    // Act
    await fireJobTimer(m.deps, staleEntry, 'sweep');
    // Assess
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', tracking: { fenceToken: 2 } });
  });

  it('the same stale entry delivered from the queue changes nothing: a stale fence never acts', async () => {
    // Prepare
    const { staleEntry } = await takenOverJob();
    m.clock.set(at(66));
    const before = await m.snapshot();
    // Act
    await fireJobTimer(m.deps, staleEntry, 'queue');
    // Assess
    expect(await m.snapshot()).toEqual(before);
  });

  it('from the sweep, within the grace of the job\'s own wake-up: dropped, that wake-up is on its way', async () => {
    // Prepare
    const { staleEntry } = await takenOverJob();
    m.clock.set(at(64));
    const before = await m.snapshot();
    // Act
    await fireJobTimer(m.deps, staleEntry, 'sweep');
    // Assess
    expect(await m.snapshot()).toEqual(before);
  });
});

describe('a late wake-up acting for a lost one sees the progress the workflows stored (dynalite)', () => {
  const m = useTestManager();

  it('a job that advanced within its stuck threshold is not timed out as stuck', async () => {
    // Prepare: stuck threshold 30 s; the 32.5 s stuck check re-armed for the advance at 20 s, and that
    // re-armed wake-up was lost. Progress lives on the workflow item only (the job item is not written).
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 1_000, stuckThresholdSeconds: 30, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const token = tokenOf(submitted, 'wf-1');
    const firstCheck = await m.getJob('job-1');
    const report = (progress: number) => reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token, progress });
    m.clock.set(at(20));
    await report(0.5);
    m.clock.set(firstCheck.timerDueAt! + 500);
    await fireJobTimer(m.deps, { scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: firstCheck.timerDueAt! });
    const rearmed = await m.getJob('job-1');
    m.clock.set(at(40));
    await report(0.6);
    // Act: the first check is delivered again, past the grace after the lost one was due
    m.clock.set(rearmed.timerDueAt! + 6_000);
    const advancedAt = at(40);
    await fireJobTimer(m.deps, { scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: firstCheck.timerDueAt! });
    // Assess: still RUNNING, re-armed past the latest advance
    const after = await m.getJob('job-1');
    expect(rearmed.timerDueAt).toBeGreaterThan(firstCheck.timerDueAt!);
    expect(m.clock.now()).toBeLessThan(advancedAt + 30_000);
    expect(after.status).toBe('RUNNING');
    expect(after.timerDueAt).toBeGreaterThanOrEqual(advancedAt + 30_000);
  });
});
