import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { progressCoalesceMs } from '../../shared/domain/deadlines.js';
import { failed, ok, VigilClient } from '../support/vigil-client.js';
import { ms, timedOutEvents, useVigilProcess } from './e2e-support.js';

/**
 * Deadlines of a real `npm start -- --virtual-clock` process: time moves only when a test advances it
 * (`POST /_local/clock/advance`), so each test orders its events explicitly and asserts exact
 * instants: RUNNING 1 ms before a deadline, TIMED_OUT at it. They share the process's clock, so they
 * run one after the other. (job-deadlines-real-time.test.ts keeps one on the system clock.)
 */
const vigil = useVigilProcess({ regions: ['us-east-1'], virtualClock: true });
let client: VigilClient;
const run = randomUUID().slice(0, 8);

beforeAll(() => {
  client = new VigilClient(vigil.regionUrl());
});

/** When a job with this threshold and no progress since `lastProgressAt` is declared stuck (deadlines.ts). */
const stuckAt = (lastProgressAt: number, stuckThresholdSeconds: number) => lastProgressAt + stuckThresholdSeconds * 1_000 + progressCoalesceMs(stuckThresholdSeconds);
const statusAt = async (at: number, jobId: string) => {
  await client.advanceClockTo(at);
  return ok(await client.getJob(jobId)).status;
};

describe('deadlines of a real `npm start` process on the virtual clock', () => {
  it('times a job out exactly at its deadline; a later progress report tells the worker to cancel', async () => {
    // Prepare
    const workerId = `w-timeout-${run}`;
    const submitted = ok(
      await client.submitJob({ jobId: `timeout-${run}`, timeoutSeconds: 2, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId }] }),
    );
    const token = submitted.workflows[0]?.token;
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.1 }, token))).toMatchObject({ status: 'RUNNING', cancel: false });
    const deadline = ms(submitted.deadlineAt);

    // Act
    const justBefore = await statusAt(deadline - 1, submitted.jobId);
    await client.advanceClockTo(deadline);
    const job = ok(await client.getJob(submitted.jobId));

    // Assess
    expect(justBefore).toBe('RUNNING');
    expect(job).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout', fenceToken: 1 });
    expect(ms(job.finishedAt)).toBe(deadline);
    expect(job.workflows.map((w) => w.state)).toEqual(['cancelled']);
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.2 }, token))).toMatchObject({ status: 'TIMED_OUT', cancel: true });
    const events = await timedOutEvents(client, submitted.jobId);
    expect(events).toHaveLength(1);
    expect(events[0]?.detail).toMatchObject({ reason: 'timeout', fenceToken: 1 });
  });

  it('keeps a job alive while progress arrives, then declares it stuck exactly the threshold (plus the coalescing allowance) after the last', async () => {
    // Prepare
    const workerId = `w-stuck-${run}`;
    const stuckThresholdSeconds = 1.5;
    const submitted = ok(
      await client.submitJob({ jobId: `stuck-${run}`, timeoutSeconds: 60, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId }] }),
    );
    const token = submitted.workflows[0]?.token;

    // Act: report every 300 ms for longer than the stuck threshold, then go silent.
    let lastReportAt = 0;
    for (let progress = 0.05; progress < 0.45; progress += 0.05) {
      lastReportAt = await client.advanceClock(300);
      expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress }, token))).toMatchObject({ status: 'RUNNING', cancel: false });
    }
    const justBefore = await statusAt(stuckAt(lastReportAt, stuckThresholdSeconds) - 1, submitted.jobId);
    await client.advanceClockTo(stuckAt(lastReportAt, stuckThresholdSeconds));
    const job = ok(await client.getJob(submitted.jobId));

    // Assess
    expect(justBefore).toBe('RUNNING');
    expect(job).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'stuck' });
    expect(ms(job.finishedAt)).toBe(stuckAt(lastReportAt, stuckThresholdSeconds));
    expect(job.workflows[0]).toMatchObject({ state: 'cancelled' });
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 1 }, token))).toMatchObject({ cancel: true });
    expect((await timedOutEvents(client, submitted.jobId)).map((event) => event.detail['reason'])).toEqual(['stuck']);
  });

  it('an extension keeps a job running past its base timeout until its workflows complete', async () => {
    // Prepare: two workflows of one worker; the base timeout is 2 s.
    const workerId = `w-ext-${run}`;
    const submitted = ok(
      await client.submitJob({
        jobId: `extended-${run}`,
        timeoutSeconds: 2,
        stuckThresholdSeconds: 20,
        workflows: [
          { workflowId: 'wf-1', workerId },
          { workflowId: 'wf-2', workerId },
        ],
      }),
    );
    const [first, second] = submitted.workflows;
    ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.1 }, first?.token));

    // Act: AD-26 grants 30 s, then refuses without new progress, then grants 15 s.
    const grant1 = ok(await client.requestExtension(workerId, { reason: 'long_workflow', currentProgress: 0.2 }, first?.token));
    const refused = ok(await client.requestExtension(workerId, { reason: 'long_workflow', currentProgress: 0.2 }, second?.token));
    ok(await client.reportProgress(submitted.jobId, 'wf-2', { workerId, progress: 0.4 }, second?.token));
    const grant2 = ok(await client.requestExtension(workerId, { reason: 'long_workflow', currentProgress: 0.4 }, second?.token));

    // Assess the grants
    expect(grant1).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect(refused).toMatchObject({ granted: false, extensionSeconds: 0, remainingExtensions: 4 });
    expect(refused.denialReason).toMatch(/progress/i);
    expect(grant2).toMatchObject({ granted: true, extensionSeconds: 15, remainingExtensions: 3 });
    const extended = ok(await client.getJob(submitted.jobId));
    expect(extended.timeoutTracking.totalExtensionsGranted).toBe(45);
    expect(ms(extended.timeoutTracking.effectiveDeadlineAt)).toBe(ms(submitted.deadlineAt) + 45_000);

    // Assess: past the base deadline the job is still running and its worker is not told to stop.
    expect(await statusAt(ms(submitted.deadlineAt) + 1_000, submitted.jobId)).toBe('RUNNING');
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.9 }, first?.token))).toMatchObject({ status: 'RUNNING', cancel: false });

    // Act + Assess: the workflows complete, and so does the job; its extended deadline then passes with nothing.
    ok(await client.complete(submitted.jobId, 'wf-1', { workerId, outcome: 'completed' }, first?.token));
    expect(ok(await client.getJob(submitted.jobId)).status).toBe('RUNNING');
    ok(await client.complete(submitted.jobId, 'wf-2', { workerId, outcome: 'completed' }, second?.token));
    const done = ok(await client.getJob(submitted.jobId));
    expect(done.status).toBe('COMPLETED');
    expect(done.workflows.map((w) => w.state)).toEqual(['completed', 'completed']);
    await client.advanceClockTo(ms(extended.timeoutTracking.effectiveDeadlineAt) + 1_000);
    expect(ok(await client.getJob(submitted.jobId))).toEqual(done);
    expect(await timedOutEvents(client, submitted.jobId)).toEqual([]);
  });

  it('completion before the deadline wins: no timeout fires afterwards', async () => {
    // Prepare
    const submitted = ok(
      await client.submitJob({
        jobId: `completed-${run}`,
        timeoutSeconds: 2,
        stuckThresholdSeconds: 60,
        workflows: [
          { workflowId: 'wf-1', workerId: `w-done-a-${run}` },
          { workflowId: 'wf-2', workerId: `w-done-b-${run}` },
        ],
      }),
    );
    const [first, second] = submitted.workflows;

    // Act
    ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId: `w-done-a-${run}`, progress: 0.5 }, first?.token));
    ok(await client.complete(submitted.jobId, 'wf-1', { workerId: `w-done-a-${run}`, outcome: 'completed' }, first?.token));
    ok(await client.complete(submitted.jobId, 'wf-2', { workerId: `w-done-b-${run}`, outcome: 'completed' }, second?.token));
    const completed = ok(await client.getJob(submitted.jobId));

    // Assess: completed now, and still completed (same finish time) a second after the old deadline.
    expect(completed.status).toBe('COMPLETED');
    expect(ms(completed.finishedAt)).toBeLessThan(ms(submitted.deadlineAt));
    await client.advanceClockTo(ms(submitted.deadlineAt) + 1_000);
    expect(ok(await client.getJob(submitted.jobId))).toEqual(completed);
    expect(await timedOutEvents(client, submitted.jobId)).toEqual([]);
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-2', { workerId: `w-done-b-${run}`, progress: 1 }, second?.token))).toMatchObject({
      status: 'COMPLETED',
      cancel: true,
    });
  });

  it('a takeover raises the fence token, keeps startedAt, and the job still times out exactly at its deadline', async () => {
    // Prepare
    const workerId = `w-takeover-${run}`;
    const submitted = ok(
      await client.submitJob({ jobId: `takeover-${run}`, timeoutSeconds: 3, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId }] }),
    );
    const before = ok(await client.getJob(submitted.jobId));

    // Act
    await client.advanceClock(1_000);
    const takeover = ok(await client.takeOver(submitted.jobId));
    const after = ok(await client.getJob(submitted.jobId));

    // Assess: new leader, same clock; the worker's token still works (it is not the fence token).
    expect(takeover.fenceToken).toBe(before.fenceToken + 1);
    expect(after.fenceToken).toBe(before.fenceToken + 1);
    expect(after.timeoutTracking.startedAt).toBe(before.timeoutTracking.startedAt);
    expect(after.timeoutTracking.effectiveDeadlineAt).toBe(before.timeoutTracking.effectiveDeadlineAt);
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.3 }, submitted.workflows[0]?.token))).toMatchObject({
      status: 'RUNNING',
      cancel: false,
    });
    expect(await statusAt(ms(submitted.deadlineAt) - 1, submitted.jobId)).toBe('RUNNING');
    await client.advanceClockTo(ms(submitted.deadlineAt));
    const job = ok(await client.getJob(submitted.jobId));
    expect(job).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout', fenceToken: 2 });
    expect(ms(job.finishedAt)).toBe(ms(submitted.deadlineAt));
    const events = await timedOutEvents(client, submitted.jobId);
    expect(events.map((event) => event.detail['fenceToken'])).toEqual([2]);
    expect(failed(await client.takeOver(submitted.jobId), 409).code).toBe('job_finished');
  });

  // (seed 000, problem 4): heartbeat OK, workflow stuck.
  it('a worker that keeps calling with an unchanged value is timed out as stuck while it heartbeats, exactly the threshold after its progress', async () => {
    // Prepare: one real advance, then the same value every 300 ms
    const workerId = `w-heartbeat-${run}`;
    const stuckThresholdSeconds = 1.5;
    const submitted = ok(
      await client.submitJob({ jobId: `heartbeat-${run}`, timeoutSeconds: 60, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId }] }),
    );
    const token = submitted.workflows[0]?.token;
    const progressAt = await client.advanceClock(100);
    const first = ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.5, step: 'load' }, token));

    // Act: heartbeat every 300 ms until told to stop (bounded well past the threshold)
    const answers = [];
    for (let answer = first, beats = 0; !answer.cancel && beats < 20; beats++) {
      await client.advanceClock(300);
      answer = ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.5, step: 'load' }, token));
      answers.push(answer);
    }
    const job = ok(await client.getJob(submitted.jobId));

    // Assess: only the first call was progress; the heartbeats never moved the stuck clock.
    expect(first).toMatchObject({ status: 'RUNNING', progressed: true });
    expect(answers.at(-1)).toMatchObject({ status: 'TIMED_OUT', cancel: true, progressed: false });
    expect(answers.filter((answer) => answer.progressed)).toEqual([]);
    expect(job).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'stuck' });
    expect(job.workflows[0]).toMatchObject({ state: 'cancelled', progress: 0.5, step: 'load' });
    expect(ms(job.finishedAt)).toBe(stuckAt(progressAt, stuckThresholdSeconds));
  });
});
