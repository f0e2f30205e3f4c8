import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { ok, VigilClient } from '../support/vigil-client.js';
import { isFinished, LOOSE_LATENESS_MS, ms, publishedTimedOutEvents, useVigilProcess, waitForJob } from './e2e-support.js';

/**
 * The one deadline test on the system clock: a real `npm start` times a job out by itself, never
 * early, within a loose bound (the exact instants are in job-deadlines.test.ts on the virtual clock;
 * lateness figures in `npm run bench`).
 */
const vigil = useVigilProcess({ regions: ['us-east-1'] });
let client: VigilClient;

beforeAll(async () => {
  client = new VigilClient(vigil.regionUrl());
  expect(ok(await client.clock())).toMatchObject({ mode: 'system' });
});

describe('deadlines of a real `npm start` process on the system clock', () => {
  it('times a job out after its deadline, never before, without being told the time', async () => {
    // Prepare
    const workerId = `w-real-${randomUUID().slice(0, 8)}`;
    const submitted = ok(await client.submitJob({ timeoutSeconds: 2, stuckThresholdSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId }] }));

    // Act
    const job = await waitForJob(vigil, client, submitted.jobId, isFinished, 2_000 + LOOSE_LATENESS_MS);

    // Assess
    expect(job).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout' });
    expect(ms(job.finishedAt)).toBeGreaterThanOrEqual(ms(submitted.deadlineAt));
    expect(ms(job.finishedAt) - ms(submitted.deadlineAt)).toBeLessThan(LOOSE_LATENESS_MS);
    expect(await publishedTimedOutEvents(client, submitted.jobId)).toHaveLength(1);
  });

  it('refuses to advance the system clock, with a 409 that says how to get a virtual one', async () => {
    const answer = await client.raw('POST', '/_local/clock/advance', '{"ms":1000}');
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ error: { code: 'virtual_clock_off', message: expect.stringMatching(/--virtual-clock/) } });
  });
});
