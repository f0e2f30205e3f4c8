import { beforeEach, describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// Stuck threshold 10 s → coalescing window 0.5 s → stuck deadline lastProgressAt + 10.5 s.
const body = { jobId: 'job-1', timeoutSeconds: 3_600, stuckThresholdSeconds: 10, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('progress resets the stuck clock (dynalite)', () => {
  const m = useTestManager();
  let token: string;
  beforeEach(async () => {
    token = tokenOf(await submit(m, body), 'wf-1');
  });

  const report = (seconds: number) => {
    m.clock.set(at(seconds));
    // Each report advances (a higher value): only an advance resets the stuck clock (heartbeat-is-not-progress.test.ts).
    return reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: seconds / 100, token });
  };

  it('without progress the job is TIMED_OUT as stuck when its first timer fires at threshold + window', async () => {
    // Prepare
    const timer = m.timers.expectArmed('job-1');
    m.clock.set(at(10.5));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect(timer.dueAt).toBe(at(10.5));
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking.timeoutReason).toBe('stuck');
    expect(m.bus.ofType('JobTimedOut').map((event) => event.detail['reason'])).toEqual(['stuck']);
    expect(m.timers.current('job-1')).toBeUndefined();
  });

  it('a progress report at 8 s makes the 10.5 s timer re-arm for 18.5 s instead of timing out', async () => {
    // Prepare
    const timer = m.timers.expectArmed('job-1');
    await report(8);
    m.clock.set(at(10.5));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('RUNNING');
    expect(job.timerDueAt).toBe(at(18.5));
    expect(m.timers.expectArmed('job-1')).toMatchObject({ dueAt: at(18.5), fenceToken: 1 });
    expect(m.bus.published).toEqual([]);
  });

  it('the re-armed timer times the job out as stuck at 18.5 s when no more progress came', async () => {
    // Prepare
    const first = m.timers.expectArmed('job-1');
    await report(8);
    m.clock.set(at(10.5));
    await fireJobTimer(m.deps, first);
    const rearmed = m.timers.expectArmed('job-1');
    m.clock.set(at(18.5));
    // Act
    await fireJobTimer(m.deps, rearmed);
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking.timeoutReason).toBe('stuck');
  });

  it('once the job has ended, a progress report answers cancel:true with the job status', async () => {
    // Prepare
    await cancelJob(m.deps, 'job-1', 'stop');
    // Act
    const answer = await report(5);
    // Assess
    expect(answer).toMatchObject({ status: 'CANCELLED', cancel: true });
  });
});
