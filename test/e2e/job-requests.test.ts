import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { failed, ok, VigilClient, type SubmitJobRequest } from '../support/vigil-client.js';
import { useVigilProcess } from './e2e-support.js';

const vigil = useVigilProcess({ regions: ['us-east-1'] });
let client: VigilClient;
const run = randomUUID().slice(0, 8);

beforeAll(() => {
  client = new VigilClient(vigil.regionUrl());
});

/** Long deadlines: these jobs must not change by themselves while a test looks at them. */
const steadyJob = (jobId: string, workerIds: string[]): SubmitJobRequest => ({
  jobId,
  timeoutSeconds: 600,
  stuckThresholdSeconds: 600,
  workflows: workerIds.map((workerId, i) => ({ workflowId: `wf-${i + 1}`, workerId })),
});

describe('requests to a real `npm start` process', () => {
  it('the same submission again answers 200 with the same job and tokens', async () => {
    // Prepare
    const body = steadyJob(`idempotent-${run}`, [`w-idem-a-${run}`, `w-idem-b-${run}`]);

    // Act
    const first = await client.submitJob(body);
    const again = await client.submitJob({ ...body, workflows: body.workflows.map((w) => ({ ...w })) });

    // Assess
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(ok(again)).toEqual(ok(first));
    expect(ok(first)).toMatchObject({ jobId: body.jobId, status: 'RUNNING', strategy: 'local_authority', fenceToken: 1 });
  });

  it('submissions without a jobId are separate jobs', async () => {
    const body = { timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: `w-anon-${run}` }] };
    const first = await client.submitJob(body);
    const second = await client.submitJob(body);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(ok(first).jobId).not.toBe(ok(second).jobId);
  });

  it('cancel ends a running job once; a second cancel is a 409 and workers are told to stop', async () => {
    // Prepare
    const workerId = `w-cancel-${run}`;
    const submitted = ok(await client.submitJob(steadyJob(`cancel-${run}`, [workerId])));
    const token = submitted.workflows[0]?.token;
    ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.5 }, token));

    // Act
    const cancelled = await client.cancel(submitted.jobId, { reason: 'operator asked' });
    const afterCancel = ok(await client.getJob(submitted.jobId));
    const again = await client.cancel(submitted.jobId);

    // Assess
    expect(cancelled.status).toBe(200);
    expect(ok(cancelled).status).toBe('CANCELLED');
    expect(afterCancel.status).toBe('CANCELLED');
    expect(afterCancel.workflows.map((w) => w.state)).toEqual(['cancelled']);
    expect(failed(again, 409).code).toBe('job_finished');
    expect(ok(await client.getJob(submitted.jobId))).toEqual(afterCancel);
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId, progress: 0.6 }, token))).toMatchObject({
      status: 'CANCELLED',
      cancel: true,
    });
  });

  it('a cancel without a body is accepted', async () => {
    const submitted = ok(await client.submitJob(steadyJob(`cancel-nobody-${run}`, [`w-cancel-nobody-${run}`])));
    const answer = await client.raw('POST', `/jobs/${submitted.jobId}/cancel`);
    expect(answer).toEqual({ status: 200, body: expect.objectContaining({ status: 'CANCELLED' }) });
  });

  it('an invalid submission is refused with the field named, and stores nothing', async () => {
    // Prepare
    const jobId = `refused-${run}`;
    const workflows = [{ workflowId: 'wf-1', workerId: `w-refused-${run}` }];

    // Act
    const malformed = await client.raw('POST', '/jobs', `{"jobId":"${jobId}","timeoutSeconds":`);
    const negative = await client.submitJob({ jobId, timeoutSeconds: -5, workflows });
    const noWorkflows = await client.submitJob({ jobId, timeoutSeconds: 5, workflows: [] });
    const badId = await client.submitJob({ jobId: 'has space', timeoutSeconds: 5, workflows });

    // Assess
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error: { code: 'invalid_request' } });
    const negativeError = failed(negative, 400);
    expect(negativeError.code).toBe('invalid_request');
    expect(negativeError.details).toEqual([expect.objectContaining({ field: 'timeoutSeconds' })]);
    expect(negativeError.message).toContain('timeoutSeconds');
    expect(failed(noWorkflows, 400).details).toEqual([expect.objectContaining({ field: 'workflows' })]);
    expect(failed(badId, 400).details).toEqual([expect.objectContaining({ field: 'jobId' })]);
    expect(failed(await client.getJob(jobId), 404).code).toBe('job_not_found');
    // Nothing of the refused bodies was kept: the id is free for a new submission.
    expect((await client.submitJob({ jobId, timeoutSeconds: 600, workflows })).status).toBe(201);
  });

  it('bad worker and operator requests get the contract errors and change nothing', async () => {
    // Prepare
    const [workerA, workerB] = [`w-bad-a-${run}`, `w-bad-b-${run}`];
    const body = steadyJob(`guarded-${run}`, [workerA, workerB]);
    const submitted = ok(await client.submitJob(body));
    const other = ok(await client.submitJob(steadyJob(`other-${run}`, [workerA])));
    const [tokenA, tokenB] = submitted.workflows.map((w) => w.token);
    const otherJobToken = other.workflows[0]?.token;
    const jobPath = `/jobs/${submitted.jobId}`;
    const before = ok(await client.getJob(submitted.jobId));

    // Act + Assess, one bad request at a time.
    const progress = (workflowId: string, token: string | undefined, progressBody: Record<string, unknown> = { workerId: workerA, progress: 0.5 }) =>
      client.raw('POST', `${jobPath}/workflows/${workflowId}/progress`, JSON.stringify(progressBody), token === undefined ? {} : { 'x-vigil-token': token });
    const expectError = (answer: { status: number; body: unknown }, status: number, code: string) =>
      expect(answer).toEqual({ status, body: { error: expect.objectContaining({ code, message: expect.any(String) }) } });

    expectError(await progress('wf-1', undefined), 401, 'missing_token');
    expectError(await progress('wf-1', tokenB), 403, 'invalid_token'); // another workflow's token
    expectError(await progress('wf-1', otherJobToken), 403, 'invalid_token'); // the same worker's token for another job
    expectError(await progress('wf-1', tokenA, { workerId: workerB, progress: 0.5 }), 403, 'invalid_token'); // posing as another worker
    expectError(await progress('wf-1', tokenA, { workerId: workerA, progress: 1.5 }), 400, 'invalid_request');
    expectError(
      await client.raw('POST', `${jobPath}/workflows/wf-1/progress`, '{"workerId":', { 'x-vigil-token': tokenA ?? '' }),
      400,
      'invalid_request',
    );
    expectError(
      await client.raw('POST', `${jobPath}/workflows/wf-1/complete`, JSON.stringify({ workerId: workerA, outcome: 'done' }), { 'x-vigil-token': tokenA ?? '' }),
      400,
      'invalid_request',
    );
    expectError(await client.raw('POST', `${jobPath}/workflows/wf-1/complete`, JSON.stringify({ workerId: workerA, outcome: 'completed' })), 401, 'missing_token');
    expectError(
      await client.raw('POST', `/workers/${workerA}/extensions`, JSON.stringify({ reason: 'long_workflow', currentProgress: 0.5 })),
      401,
      'missing_token',
    );
    expectError(
      await client.raw('POST', `/workers/${workerA}/extensions`, JSON.stringify({ reason: 'long_workflow', currentProgress: 0.5 }), {
        'x-vigil-token': tokenB ?? '',
      }),
      403,
      'invalid_token',
    );
    expectError(await client.raw('POST', `${jobPath}/cancel`, '{"reason": '), 400, 'invalid_request');
    expectError(await client.raw('POST', '/jobs', JSON.stringify({ ...body, timeoutSeconds: 601 })), 409, 'submission_conflict');
    expectError(
      await client.raw('POST', '/jobs', JSON.stringify({ ...body, workflows: [...body.workflows].reverse() })),
      409,
      'submission_conflict',
    );
    expectError(await client.raw('GET', `/jobs/missing-${run}`), 404, 'job_not_found');
    expectError(await client.raw('POST', `/jobs/missing-${run}/cancel`, '{}'), 404, 'job_not_found');
    expectError(await client.raw('POST', `/jobs/missing-${run}/takeover`), 404, 'job_not_found');
    expectError(await client.raw('GET', '/no-such-route'), 404, 'route_not_found');

    // Assess: the job is exactly as it was, and its worker can still use it.
    expect(ok(await client.getJob(submitted.jobId))).toEqual(before);
    expect(ok(await client.reportProgress(submitted.jobId, 'wf-1', { workerId: workerA, progress: 0.5 }, tokenA))).toMatchObject({
      status: 'RUNNING',
      cancel: false,
    });
  });
});
