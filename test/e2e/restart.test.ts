import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ok, VigilClient } from '../support/vigil-client.js';
import { isFinished, ms, ON_TIME_MS, sleepUntil, timedOutEvents, useVigilProcess, waitForJob } from './e2e-support.js';

/** Long enough that the restart (tsx start-up, dynalite reopening its files) ends before this deadline. */
const SURVIVOR_TIMEOUT_SECONDS = 8;

const vigil = useVigilProcess({ regions: ['us-east-1'] });
const run = randomUUID().slice(0, 8);

describe('kill -9 and a restart with the same data dir', () => {
  it('keeps every job: running ones still time out, overdue ones time out at once, finished ones stay finished', async () => {
    // Prepare: one job that outlives the restart, one whose deadline passes while Vigil is down,
    // and one that completed before the crash.
    const before = new VigilClient(vigil.regionUrl());
    const survivorWorker = `w-survivor-${run}`;
    const survivor = ok(
      await before.submitJob({
        jobId: `survivor-${run}`,
        timeoutSeconds: SURVIVOR_TIMEOUT_SECONDS,
        stuckThresholdSeconds: 60,
        workflows: [{ workflowId: 'wf-1', workerId: survivorWorker }],
      }),
    );
    const overdue = ok(
      await before.submitJob({
        jobId: `overdue-${run}`,
        timeoutSeconds: 1,
        stuckThresholdSeconds: 60,
        workflows: [{ workflowId: 'wf-1', workerId: `w-overdue-${run}` }],
      }),
    );
    const finished = ok(
      await before.submitJob({
        jobId: `finished-${run}`,
        timeoutSeconds: 1,
        stuckThresholdSeconds: 60,
        workflows: [{ workflowId: 'wf-1', workerId: `w-finished-${run}` }],
      }),
    );
    ok(await before.reportProgress(survivor.jobId, 'wf-1', { workerId: survivorWorker, progress: 0.2 }, survivor.workflows[0]?.token));
    ok(await before.complete(finished.jobId, 'wf-1', { workerId: `w-finished-${run}`, outcome: 'completed' }, finished.workflows[0]?.token));
    const survivorBefore = ok(await before.getJob(survivor.jobId));
    const finishedBefore = ok(await before.getJob(finished.jobId));
    expect(ok(await before.getJob(overdue.jobId)).status).toBe('RUNNING');

    // Act: crash, stay down past the overdue job's deadline, start again on the same data dir.
    await vigil.kill('SIGKILL');
    const killedAt = Date.now();
    await sleepUntil(ms(overdue.deadlineAt) + 200);
    await vigil.restart();
    const restartedAt = Date.now();
    const client = new VigilClient(vigil.regionUrl());

    // Assess: the overdue job times out right after the restart.
    const overdueJob = await waitForJob(vigil, client, overdue.jobId, isFinished, 5_000);
    expect(overdueJob).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout' });
    expect(ms(overdueJob.finishedAt)).toBeGreaterThan(killedAt);
    expect(ms(overdueJob.finishedAt) - restartedAt).toBeLessThan(ON_TIME_MS);

    // Assess: the running job is still tracked, unchanged, and its worker's token still works.
    expect(Date.now(), 'the restart took longer than the survivor job has; raise SURVIVOR_TIMEOUT_SECONDS').toBeLessThan(
      ms(survivor.deadlineAt),
    );
    expect(ok(await client.getJob(survivor.jobId))).toEqual(survivorBefore);
    expect(
      ok(await client.reportProgress(survivor.jobId, 'wf-1', { workerId: survivorWorker, progress: 0.3 }, survivor.workflows[0]?.token)),
    ).toMatchObject({ status: 'RUNNING', cancel: false });

    // Assess: its timeout fires on time, once.
    const survivorJob = await waitForJob(vigil, client, survivor.jobId, isFinished, SURVIVOR_TIMEOUT_SECONDS * 1_000 + 8_000);
    expect(survivorJob).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout' });
    const lateMs = ms(survivorJob.finishedAt) - ms(survivor.deadlineAt);
    expect(lateMs).toBeGreaterThanOrEqual(0);
    expect(lateMs).toBeLessThan(ON_TIME_MS);
    expect(await timedOutEvents(client, survivor.jobId)).toHaveLength(1);

    // Assess: the completed job stayed completed; its old deadline fired nothing.
    expect(ok(await client.getJob(finished.jobId))).toEqual(finishedBefore);
    expect(await timedOutEvents(client, finished.jobId)).toEqual([]);
  }, 60_000);
});
