import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { failsAt } from '../../shared/domain/worker-health.js';
import { InvalidTokenError } from '../../shared/domain/errors.js';
import { at } from '../support/fixtures.js';
import { extensionsOf, submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

/**
 * Review of the region manager's core (extensions, stuck clock, job id reuse). Each test states a
 * promise of the contract / seeds that the code currently breaks.
 */

describe('extension progress is the progress of the token\'s job only (dynalite)', () => {
  const m = useTestManager();

  it('an extension showing progress on job-1 does not reset the stuck clock of job-2, where the worker never advanced', async () => {
    // Prepare: worker-a works on job-1 (never stuck) and on job-2 (stuck threshold 60 s: stuck deadline 63 s).
    const job1 = await submit(m, { jobId: 'job-1', timeoutSeconds: 1_000, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await submit(m, { jobId: 'job-2', timeoutSeconds: 1_000, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(50));
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job1, 'wf-1'), currentProgress: 0.3 });
    expect(answer).toMatchObject({ granted: true });
    // Act: job-2's wake-up at its stuck deadline (its deadline moved by the grant; its stuck clock must not have)
    m.clock.set(at(63));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-2'));
    // Assess: job-2's workflow made no progress at all: it is stuck.
    const job2 = await m.getJob('job-2');
    expect(job2.tracking.lastProgressAt).toBe(at(0));
    expect(job2).toMatchObject({ status: 'TIMED_OUT', tracking: { timeoutReason: 'stuck' } });
  });
});

describe('AD-26: an extension is only granted with progress since the last grant (dynalite)', () => {
  const m = useTestManager();

  async function liveAndFinishedJobs(t: TestManager) {
    // A job the worker ran earlier (cancelled: its token is stale, the job is over) and the live one.
    const old = await submit(t, { jobId: 'job-old', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await cancelJob(t.deps, 'job-old', 'done');
    const live = await submit(t, { jobId: 'job-live', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    return { oldToken: tokenOf(old, 'wf-1'), liveToken: tokenOf(live, 'wf-1') };
  }

  it('alternating the live job\'s token with a finished job\'s token at constant progress 0.5 gets no more than the first grant', async () => {
    // Prepare
    const { oldToken, liveToken } = await liveAndFinishedJobs(m);
    // Act: the worker's progress never moves from 0.5; only the token it presents changes.
    const answers = [];
    for (const [i, token] of [liveToken, oldToken, liveToken, oldToken, liveToken].entries()) {
      m.clock.set(at(i));
      answers.push(await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: 0.5 }));
    }
    // Assess
    expect(answers.map((a) => a.granted)).toEqual([true, false, false, false, false]);
    expect((await m.getJob('job-live')).tracking.totalExtensionsGranted).toBe(30);
  });

  it('a token of an earlier incarnation of a reused job id changes nothing (a stale token never changes state)', async () => {
    // Prepare: job-1 ran, was cancelled and expired; job-1 is submitted again with the same worker.
    const old = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await cancelJob(m.deps, 'job-1', 'done');
    await m.dynamo.doc.send(new DeleteCommand({ TableName: m.tableName, Key: { pk: 'JOB#job-1', sk: 'JOB' } }));
    await submit(m, { jobId: 'job-1', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const before = await m.getJob('job-1');
    // Act: the old incarnation's token, refused by the progress and complete calls, on the extension call
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(old, 'wf-1'), currentProgress: 0.5 }).catch((e: unknown) => e);
    // Assess
    expect(answer).toBeInstanceOf(InvalidTokenError);
    expect((await m.getJob('job-1')).tracking).toEqual(before.tracking);
  });
});

describe('AD-34 Part 8: a job is extended by the grants made, not by the budget spent before the worker joined it (dynalite)', () => {
  const m = useTestManager();

  it('a worker that spent 4 grants on job-1 and then gets its 5th (1.875 s) adds 1.875 s to job-2, not 58.125 s', async () => {
    // Prepare: four grants on job-1 (56.25 s), then the worker starts on job-2.
    const job1 = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    for (const [i, progress] of [0.1, 0.2, 0.3, 0.4].entries()) {
      m.clock.set(at(i));
      await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job1, 'wf-1'), currentProgress: progress });
    }
    m.clock.set(at(10));
    const job2 = await submit(m, { jobId: 'job-2', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job2, 'wf-1'), currentProgress: 0.5 });
    // Assess: the answer says 1.875 s; job-2's deadline moves by that, job-1's by it too.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 1.875 });
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(58.125);
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(1.875);
  });
});

describe('job id reuse: a grant record of the earlier job with this id does not misplace a grant (dynalite)', () => {
  const m = useTestManager();

  const expireJobItem = (t: TestManager, jobId: string) =>
    t.dynamo.doc.send(new DeleteCommand({ TableName: t.tableName, Key: { pk: `JOB#${jobId}`, sk: 'JOB' } }));

  it('both workers\' grants count on the reused job: 30 s (worker-b) + worker-a\'s', async () => {
    // Prepare: the earlier job-1 had worker-a at index 1, and worker-a extended it.
    const old = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      workflows: [
        { workflowId: 'wf-z', workerId: 'worker-z' },
        { workflowId: 'wf-a', workerId: 'worker-a' },
      ],
    });
    await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(old, 'wf-a'), currentProgress: 0.1 });
    await cancelJob(m.deps, 'job-1', 'done with it');
    await expireJobItem(m, 'job-1'); // the job item's TTL is its finish + retention; the grant record's is later
    m.clock.set(at(10));
    // The new job-1: worker-a at index 0, worker-b at index 1.
    const fresh = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 600,
      stuckThresholdSeconds: 100_000,
      workflows: [
        { workflowId: 'wf-a', workerId: 'worker-a' },
        { workflowId: 'wf-b', workerId: 'worker-b' },
      ],
    });
    // Act
    const b = await requestExtension(m.deps, { workerId: 'worker-b', token: tokenOf(fresh, 'wf-b'), currentProgress: 0.1 });
    const a = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(fresh, 'wf-a'), currentProgress: 0.2 });
    // Assess: each grant told its worker the job was extended; the job holds both.
    expect(b).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(a.granted).toBe(true);
    // worker-a's first grant went to the earlier job; this job adds only the grant it was given.
    expect(await extensionsOf(m, 'job-1')).toEqual(new Map([['worker-a', a.extensionSeconds], ['worker-b', 30]]));
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(30 + a.extensionSeconds);
  });
  it('a silent (failed) worker of the earlier job with this id does not take a live worker\'s grant off the reused job', async () => {
    // Prepare: the earlier job-1 had worker-z at index 0, which extended it and then went silent.
    const old = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-z', workerId: 'worker-z' }] });
    await requestExtension(m.deps, { workerId: 'worker-z', token: tokenOf(old, 'wf-z'), currentProgress: 0.1 });
    await cancelJob(m.deps, 'job-1', 'done with it');
    await expireJobItem(m, 'job-1');
    // The new job-1 (submitted at 100 s, timeout 60 s): worker-a at index 0 extends it by 30 s at 110 s.
    m.clock.set(at(100));
    const fresh = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-a', workerId: 'worker-a' }] });
    m.clock.set(at(110));
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(fresh, 'wf-a'), currentProgress: 0.1 })).toMatchObject({ granted: true, extensionSeconds: 30 });
    // Act: the wake-up at the base deadline (160 s); the effective deadline is 190 s.
    m.clock.set(at(160));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('RUNNING');
    expect(job.tracking.totalExtensionsGranted).toBe(30);
  });
});

describe('a job past its effective deadline is owed its timeout: no grant undoes it (dynalite)', () => {
  const m = useTestManager();

  it('an extension asked after the deadline, before the wake-up fires, is denied and the wake-up times the job out', async () => {
    // Prepare: a 60 s job whose wake-up is late (the timer is armed for 60 s; it fires at 61 s).
    const job = await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(60.5));
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job, 'wf-1'), currentProgress: 0.5 });
    m.clock.set(at(61));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // Assess
    expect(answer).toMatchObject({ granted: false, denialReason: expect.stringContaining('past its deadline') });
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', tracking: { totalExtensionsGranted: 0 } });
  });

  it("a grant asked with another job's token extends the running job and leaves the one past its deadline to time out", async () => {
    // Prepare: worker-a is on a job past its deadline (60 s) and on one due at 300 s.
    await submit(m, { jobId: 'job-due', timeoutSeconds: 60, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const live = await submit(m, { jobId: 'job-live', timeoutSeconds: 300, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(60));
    // Act
    const answer = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(live, 'wf-1'), currentProgress: 0.5 });
    // Assess
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect((await m.getJob('job-live')).tracking.totalExtensionsGranted).toBe(30);
    expect((await m.getJob('job-due')).tracking.totalExtensionsGranted).toBe(0);
  });
});

// Review finding: a failed worker's grant counted until the job's wake-up dropped it, so a job past its
// real effective deadline still took another worker's grants, which then kept it alive.
describe('a job past its effective deadline takes no grant, counting only grants that still count (dynalite)', () => {
  const m = useTestManager();

  it('a silently failed worker\'s grant, not yet dropped by the job\'s wake-up, does not let another worker extend a job past its real deadline', async () => {
    // job: 100 s timeout, worker-a and worker-b
    const submitted = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 100,
      stuckThresholdSeconds: 100_000,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-a' },
        { workflowId: 'wf-2', workerId: 'worker-b' },
      ],
    });
    // worker-b takes one grant at 0 s, then falls silent: health deadline 0+1+30+30 = 61 s, failed after 91 s.
    m.clock.set(at(0));
    expect(await requestExtension(m.deps, { workerId: 'worker-b', token: tokenOf(submitted, 'wf-2'), currentProgress: 0.1 })).toMatchObject({ granted: true });
    // At 105 s worker-b is failed: its grant no longer counts, so the job's effective deadline is 100 s, passed.
    // worker-a (healthy, a fresh worker) asks now, twice with progress.
    m.clock.set(at(105));
    const first = await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.1 });
    m.clock.set(at(106));
    await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.2 });
    // The job's wake-up (armed for the stored 130 s) fires.
    m.clock.set(at(130));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const job = await m.getJob('job-1');
    // A job past its effective deadline takes no grant: worker-a must have been refused, and the job timed out.
    expect({ granted: first.granted, status: job.status, total: job.tracking.totalExtensionsGranted }).toEqual({ granted: false, status: 'TIMED_OUT', total: 0 });
  });
});

// Review finding: a silently failed worker's grant counted until the job's wake-up at the deadline it
// made, so the job outlived its real deadline (the moment the worker failed) by up to that grant.
describe("a granted worker that falls silent stops keeping its job alive when it fails, not at the deadline its grant made (dynalite)", () => {
  const m = useTestManager();

  it('a job past its own timeout on a grant looks again when that grant\'s worker would fail, and times out then', async () => {
    // Prepare: 100 s timeout; worker-b takes a 30 s grant at 0 s (deadline 130 s), is last heard at 20 s
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 100, stuckThresholdSeconds: 100_000, workflows: [{ workflowId: 'wf-1', workerId: 'worker-b' }] });
    m.clock.set(at(0));
    expect(await requestExtension(m.deps, { workerId: 'worker-b', token: tokenOf(submitted, 'wf-1'), currentProgress: 0.1 })).toMatchObject({ granted: true });
    m.clock.set(at(20));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-b', token: tokenOf(submitted, 'wf-1') });
    const worker = await m.deps.jobs.getWorker('worker-b');
    if (!worker) throw new Error('no worker item');
    const failedAt = failsAt(worker, m.deps.policy);
    expect(failedAt).toBeGreaterThan(at(100));
    expect(failedAt).toBeLessThan(at(130));
    // Act: the wake-up at the job's own timeout finds the worker alive; the next comes when it would fail
    m.clock.set(at(100));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const rearmed = await m.getJob('job-1');
    m.clock.set(rearmed.timerDueAt ?? at(130));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    // Assess
    expect(rearmed).toMatchObject({ status: 'RUNNING', timerDueAt: failedAt });
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', finishedAt: failedAt });
  });
});
