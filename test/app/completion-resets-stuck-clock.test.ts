import { beforeEach, describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { getJob } from '../../shared/app/get-job.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { toIso } from '../../shared/domain/time.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

// Stuck threshold 10 s → coalescing window 0.5 s → stuck deadline lastProgressAt + 10.5 s.
const body = {
  jobId: 'job-1',
  timeoutSeconds: 3_600,
  stuckThresholdSeconds: 10,
  workflows: [
    { workflowId: 'wf-a', workerId: 'worker-a' },
    { workflowId: 'wf-b', workerId: 'worker-b' },
  ],
};

describe('a workflow outcome resets its job stuck clock (dynalite)', () => {
  const m = useTestManager();
  let tokens: { a: string; b: string };
  beforeEach(async () => {
    const submitted = await submit(m, body);
    tokens = { a: tokenOf(submitted, 'wf-a'), b: tokenOf(submitted, 'wf-b') };
  });

  // Worker A reports no progress value, only its outcome; worker B, in a long step, only heartbeats.
  const completeA = (seconds: number) => {
    m.clock.set(at(seconds));
    return completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-a', workerId: 'worker-a', outcome: 'completed', token: tokens.a });
  };
  const heartbeatB = (seconds: number) => {
    m.clock.set(at(seconds));
    return reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-b', workerId: 'worker-b', token: tokens.b });
  };

  it('A completing at 8 s makes the 10.5 s wake-up re-arm for 18.5 s instead of timing the job out as stuck', async () => {
    // Prepare
    const timer = m.timers.expectArmed('job-1');
    await completeA(8);
    m.clock.set(at(10.5));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect(timer.dueAt).toBe(at(10.5));
    const job = await m.getJob('job-1');
    expect(job.status).toBe('RUNNING');
    expect(job.timerDueAt).toBe(at(18.5));
    expect(m.timers.expectArmed('job-1')).toMatchObject({ dueAt: at(18.5), fenceToken: 1 });
    expect(m.bus.published).toEqual([]);
  });

  it('the job shows the outcome as its last progress, B a heartbeat later is told the new stuck time, and the deadline has not moved', async () => {
    // Prepare
    const before = await getJob(m.deps, 'job-1');
    await completeA(8);
    // Act
    const answer = await heartbeatB(9);
    const after = await getJob(m.deps, 'job-1');
    // Assess
    expect(answer).toMatchObject({ status: 'RUNNING', progressed: false, stuckAt: toIso(at(18.5)), deadlineAt: before.deadlineAt });
    expect(after.timeoutTracking).toEqual({ ...before.timeoutTracking, lastProgressAt: toIso(at(8)) });
  });

  it('with no more progress, the re-armed wake-up times the job out as stuck at 18.5 s; a repeat of the outcome at 15 s does not keep it alive', async () => {
    // Prepare
    const first = m.timers.expectArmed('job-1');
    await completeA(8);
    m.clock.set(at(10.5));
    await fireJobTimer(m.deps, first);
    const rearmed = m.timers.expectArmed('job-1');
    await completeA(15);
    m.clock.set(at(18.5));
    // Act
    await fireJobTimer(m.deps, rearmed);
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking.timeoutReason).toBe('stuck');
    expect(job.tracking.lastProgressAt).toBe(at(8));
  });
});
