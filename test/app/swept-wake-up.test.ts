import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { at } from '../support/fixtures.js';
import { submit, useTestManager } from './support/test-manager.js';

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
