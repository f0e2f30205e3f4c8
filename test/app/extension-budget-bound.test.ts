import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { effectiveDeadline } from '../../shared/domain/deadlines.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

const LONG = 100_000;

async function oneWorkerJob(m: TestManager, jobId: string, timeoutSeconds: number, workerId = 'worker-a') {
  const submitted = await submit(m, { jobId, timeoutSeconds, stuckThresholdSeconds: LONG, workflows: [{ workflowId: 'wf-1', workerId }] });
  return tokenOf(submitted, 'wf-1');
}

/** Five grants with rising progress at 0–4 s: the whole budget, 58.125 s. */
async function spendBudget(m: TestManager, token: string, workerId = 'worker-a') {
  for (const [i, progress] of [0.1, 0.2, 0.3, 0.4, 0.5].entries()) {
    m.clock.set(at(i));
    expect(await requestExtension(m.deps, { workerId, token, currentProgress: progress })).toMatchObject({ granted: true });
  }
}

describe('a suspect worker that recovers keeps its spent budget (dynalite)', () => {
  const m = useTestManager();

  it('reporting just past its health deadline, then asking again, never adds to the job beyond one budget', async () => {
    // Prepare
    const token = await oneWorkerJob(m, 'job-1', 300);
    await spendBudget(m, token);
    // Act: several "suspect → healthy" cycles, each followed by a request with progress
    const answers = [];
    let t = 4;
    for (const progress of [0.6, 0.7, 0.8]) {
      t += 100; // past the health deadline (1 + 30 + 58.125 s after the last healthcheck), within suspicion
      m.clock.set(at(t));
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token });
      answers.push(await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: progress }));
    }
    // Assess
    expect(answers.map((a) => a.granted)).toEqual([false, false, false]);
    expect(answers[0]?.denialReason).toMatch(/Maximum extensions/);
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(58.125);
  });
});

describe('a failed worker that recovers gets a fresh budget that replaces, never adds to, its old grants (dynalite)', () => {
  const m = useTestManager();

  it('after failure and recovery the job holds only the new budget\'s grant', async () => {
    // Prepare
    const token = await oneWorkerJob(m, 'job-1', 300);
    await spendBudget(m, token);
    await reportWorkerFailure(m.deps, 'worker-a');
    m.clock.set(at(10));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token });
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: 0.6 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30);
  });
});

describe('a failure that moves the deadline earlier re-arms the timer (dynalite)', () => {
  // Suspicion long enough that the silent worker is still only suspect at 610 s.
  const m = useTestManager({ policy: { workerSuspicionSeconds: LONG } });

  async function extendedThenFailedAt610() {
    const token = await oneWorkerJob(m, 'job-1', 600);
    await spendBudget(m, token);
    m.clock.set(at(600));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1')); // not due: re-armed for 658.125 s
    expect(m.timers.expectArmed('job-1').dueAt).toBe(at(658.125));
    m.clock.set(at(610));
    await reportWorkerFailure(m.deps, 'worker-a');
  }

  it('the wake-up is re-armed for the new deadline (600 s) and times the job out at 610 s, not 658 s', async () => {
    // Prepare
    await extendedThenFailedAt610();
    const timer = m.timers.expectArmed('job-1');
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect(timer.dueAt).toBe(at(600));
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(610) });
  });

  it('with only the sweep running, the sparse index holds the new due time and the sweep times the job out at 610 s', async () => {
    // Prepare
    await extendedThenFailedAt610();
    // Act
    const { fired } = await sweepJobTimers(m.deps);
    // Assess
    expect(fired).toBe(1);
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', finishedAt: at(610) });
  });
});

describe('a granted extension whose progress advanced resets the stuck clock (dynalite)', () => {
  const m = useTestManager();

  it('the job is not stuck at its old stuck deadline after an extension with progress', async () => {
    // Prepare: stuck threshold 60 s (stuck deadline 63 s with the 3 s coalescing allowance)
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 1_000, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(50));
    await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.3 });
    // Act
    m.clock.set(at(63));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // Assess
    const job = await m.getJob('job-1');
    expect(job.tracking.lastProgressAt).toBe(at(50));
    expect(job.status).toBe('RUNNING');
  });
});

describe('the budget resets when the worker completes its work; progress is compared within one job (dynalite)', () => {
  const m = useTestManager();

  it('a worker that finished all its workflows starts its next job with a fresh budget', async () => {
    // Prepare
    const token1 = await oneWorkerJob(m, 'job-1', 300);
    await spendBudget(m, token1);
    // Act
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: token1 });
    const token2 = await oneWorkerJob(m, 'job-2', 300);
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: token2, currentProgress: 0.1 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(30);
  });

  it('a worker still active elsewhere keeps its budget when one of its workflows completes', async () => {
    // Prepare
    const token1 = await oneWorkerJob(m, 'job-1', 300);
    const token2 = await oneWorkerJob(m, 'job-2', 300);
    await spendBudget(m, token1);
    // Act
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: token1 });
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: token2, currentProgress: 0.9 });
    // Assess
    expect(answer).toMatchObject({ granted: false, remainingExtensions: 0 });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(58.125);
  });

  it('progress of another job is not compared: 0.2 on job-2 after 0.9 on job-1 is granted', async () => {
    // Prepare
    const token1 = await oneWorkerJob(m, 'job-1', 300);
    const token2 = await oneWorkerJob(m, 'job-2', 300);
    await requestExtension(m.deps, { workerId: 'worker-a', token: token1, currentProgress: 0.9 });
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: token2, currentProgress: 0.2 });
    const sameJobNoProgress = await requestExtension(m.deps, { workerId: 'worker-a', token: token2, currentProgress: 0.2 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 15 });
    expect(sameJobNoProgress).toMatchObject({ granted: false, denialReason: 'No progress since last extension (was 0.2, now 0.2).' });
    expect(effectiveDeadline((await m.getJob('job-2')).tracking)).toBe(at(345));
  });
});
