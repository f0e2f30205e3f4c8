import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ok, VigilClient } from '../support/vigil-client.js';
import { ms, publishedTimedOutEvents, timedOutEvents, useVigilProcess } from './e2e-support.js';

/**
 * `kill -9` and a restart of a real `npm start -- --virtual-clock`: time moves only when the test
 * advances it, so the restart costs no job any time (no restart budget to race), and the downtime is
 * whatever the test says. (restart-mid-flight.test.ts restarts on the system clock.)
 */
const vigil = useVigilProcess({ regions: ['us-east-1'], virtualClock: true });
const run = randomUUID().slice(0, 8);
const DOWNTIME_MS = 1_500;

describe('kill -9 and a restart with the same data dir', () => {
  it('keeps every job: running ones still time out exactly on time, overdue ones at once, finished ones stay finished', async () => {
    // Prepare: one job that outlives the restart, one whose deadline passes while Vigil is down,
    // and one that completed before the crash.
    const before = new VigilClient(vigil.regionUrl());
    const survivorWorker = `w-survivor-${run}`;
    const submit = async (name: string, timeoutSeconds: number, workerId = `w-${name}-${run}`) =>
      ok(await before.submitJob({ jobId: `${name}-${run}`, timeoutSeconds, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId }] }));
    const survivor = await submit('survivor', 5, survivorWorker);
    const overdue = await submit('overdue', 1);
    const finished = await submit('finished', 1);
    ok(await before.reportProgress(survivor.jobId, 'wf-1', { workerId: survivorWorker, progress: 0.2 }, survivor.workflows[0]?.token));
    ok(await before.complete(finished.jobId, 'wf-1', { workerId: `w-finished-${run}`, outcome: 'completed' }, finished.workflows[0]?.token));
    const survivorBefore = ok(await before.getJob(survivor.jobId));
    const finishedBefore = ok(await before.getJob(finished.jobId));
    const killedAt = await before.advanceClock(0);
    expect(ok(await before.getJob(overdue.jobId)).status).toBe('RUNNING');

    // Act: crash, stay down past the overdue job's deadline, start again on the same data dir.
    await vigil.kill('SIGKILL');
    await vigil.restart({ virtualDowntimeMs: DOWNTIME_MS });
    const client = new VigilClient(vigil.regionUrl());
    const restartedAt = ok(await client.clock()).now;
    const overdueAtRestart = ok(await client.getJob(overdue.jobId));
    await client.advanceClock(0);

    // Assess: the virtual time resumed where it stood, plus the downtime; the overdue job times out at once.
    expect(restartedAt).toBe(killedAt + DOWNTIME_MS);
    expect(overdueAtRestart.status).toBe('RUNNING');
    const overdueJob = ok(await client.getJob(overdue.jobId));
    expect(overdueJob).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout' });
    expect(ms(overdueJob.finishedAt)).toBe(restartedAt);

    // Assess: the running job is still tracked, unchanged, and its worker's token still works.
    expect(ok(await client.getJob(survivor.jobId))).toEqual(survivorBefore);
    expect(
      ok(await client.reportProgress(survivor.jobId, 'wf-1', { workerId: survivorWorker, progress: 0.3 }, survivor.workflows[0]?.token)),
    ).toMatchObject({ status: 'RUNNING', cancel: false });

    // Assess: its timeout fires exactly on time, once.
    await client.advanceClockTo(ms(survivor.deadlineAt) - 1);
    expect(ok(await client.getJob(survivor.jobId)).status).toBe('RUNNING');
    await client.advanceClockTo(ms(survivor.deadlineAt));
    const survivorJob = ok(await client.getJob(survivor.jobId));
    expect(survivorJob).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout' });
    expect(ms(survivorJob.finishedAt)).toBe(ms(survivor.deadlineAt));
    expect(await publishedTimedOutEvents(client, survivor.jobId)).toHaveLength(1);

    // Assess: the completed job stayed completed; its old deadline fired nothing.
    expect(ok(await client.getJob(finished.jobId))).toEqual(finishedBefore);
    expect(await timedOutEvents(client, finished.jobId)).toEqual([]);
  }, 60_000);
});
