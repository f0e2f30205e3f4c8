import { beforeEach, describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { reportWorkerFailure } from '../../shared/app/report-worker-failure.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { freshBudget } from '../../shared/domain/extension-budget.js';
import { at, T0 } from '../support/fixtures.js';
import { extensionsOf, submit, tokenOf, useTestManager } from './support/test-manager.js';

describe('seed 001 §10.7.9: worker failure and its extensions (dynalite)', () => {
  const m = useTestManager();
  let tokens: { a1: string; b1: string; a2: string };
  beforeEach(async () => {
    const shared = await submit(m, {
      jobId: 'job-shared',
      timeoutSeconds: 100,
      stuckThresholdSeconds: 3_600,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-a' },
        { workflowId: 'wf-2', workerId: 'worker-b' },
      ],
    });
    const solo = await submit(m, { jobId: 'job-solo', timeoutSeconds: 100, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    tokens = { a1: tokenOf(shared, 'wf-1'), b1: tokenOf(shared, 'wf-2'), a2: tokenOf(solo, 'wf-1') };
  });

  const extend = (workerId: string, token: string, currentProgress: number) =>
    requestExtension(m.deps, { workerId, token, currentProgress });

  it('a reported failure removes the worker\'s extensions from every job it was in and keeps the others\'', async () => {
    // Prepare
    await extend('worker-a', tokens.a1, 0.2);
    await extend('worker-b', tokens.b1, 0.2);
    // Act
    const answer = await reportWorkerFailure(m.deps, 'worker-a');
    // Assess
    expect(answer).toEqual({ workerId: 'worker-a', status: 'failed', jobsUpdated: 2 });
    expect(await extensionsOf(m, 'job-shared')).toEqual(new Map([['worker-b', 30]]));
    expect((await m.getJob('job-shared')).tracking.totalExtensionsGranted).toBe(30);
    expect(await extensionsOf(m, 'job-solo')).toEqual(new Map());
    expect((await m.getJob('job-solo')).tracking.totalExtensionsGranted).toBe(0);
    expect((await m.jobs.getWorker('worker-a'))?.failedAt).toBe(T0);
  });

  it('a failed worker is denied extensions; its next progress report recovers it with a fresh budget', async () => {
    // Prepare
    await extend('worker-a', tokens.a1, 0.6);
    await reportWorkerFailure(m.deps, 'worker-a');
    m.clock.set(at(5));
    // Act
    const whileFailed = await extend('worker-a', tokens.a1, 0.7);
    await reportProgress(m.deps, { jobId: 'job-shared', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.a1 });
    const afterRecovery = await extend('worker-a', tokens.a1, 0.1);
    // Assess
    expect(whileFailed).toMatchObject({ granted: false, denialReason: expect.stringMatching(/suspect/) });
    expect(afterRecovery).toMatchObject({ granted: true, extensionSeconds: 30, remainingExtensions: 4 });
    const worker = await m.jobs.getWorker('worker-a');
    expect(worker?.failedAt).toBeUndefined();
    // The job's progress is keyed by its id and incarnation: a job submitted again with this id is another job.
    const progressKey = `job-shared@${(await m.getJob('job-shared')).incarnation}`;
    expect(worker?.budget).toEqual({ ...freshBudget(1), count: 1, lastProgressJobId: progressKey, lastProgress: 0.1, progressByJob: { [progressKey]: 0.1 }, totalSeconds: 30 });
  });

  it('the extension of a worker that went silent until it counts as failed does not keep the job alive when its timer fires', async () => {
    // Prepare: worker-a (health deadline 61 s, failed after 91 s) extends job-solo to 130 s
    await extend('worker-a', tokens.a2, 0.2);
    const timer = m.timers.expectArmed('job-solo');
    m.clock.set(at(100));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect(timer.dueAt).toBe(at(100));
    const job = await m.getJob('job-solo');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking.timeoutReason).toBe('timeout');
  });

  it('the extension of a worker that keeps reporting does keep the job alive when its timer fires', async () => {
    // Prepare
    await extend('worker-a', tokens.a2, 0.2);
    const timer = m.timers.expectArmed('job-solo');
    m.clock.set(at(60));
    await reportProgress(m.deps, { jobId: 'job-solo', workflowId: 'wf-1', workerId: 'worker-a', token: tokens.a2 });
    m.clock.set(at(100));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect((await m.getJob('job-solo')).status).toBe('RUNNING');
    expect(m.timers.expectArmed('job-solo').dueAt).toBe(at(130));
  });
});
