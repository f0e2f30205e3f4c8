import { describe, expect, it } from 'vitest';
import { handler as getJob } from '../../functions/api/get-job.js';
import { handler as cancelJob } from '../../functions/api/cancel-job.js';
import { handler as completeWorkflow } from '../../functions/api/complete-workflow.js';
import { handler as reportProgress } from '../../functions/api/report-progress.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { handler as createPool } from '../../functions/pools/create-pool.js';
import { errorOf, invoke, type HttpAnswer } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';

const validBody = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('HTTP handlers refuse bad input with the contract\'s errors and change nothing (dynalite)', () => {
  const m = useHttpTestManager();

  it('malformed JSON → 400 invalid_request, and no job is stored', async () => {
    // Prepare
    const body = '{"jobId": "job-1", "timeoutSeconds": 60,';
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer)).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/not valid JSON/) });
    expect(await m.snapshot()).toEqual([]);
  });

  it('a negative timeoutSeconds → 400 invalid_request whose details name timeoutSeconds, and no job is stored', async () => {
    // Prepare
    const body = { ...validBody, timeoutSeconds: -5 };
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode).toBe(400);
    const error = errorOf(answer);
    expect(error.code).toBe('invalid_request');
    expect(error.details?.map((d) => d.field)).toEqual(['timeoutSeconds']);
    expect(await m.snapshot()).toEqual([]);
  });

  // Contract review: "timeoutSeconds > 0", but anything under a millisecond was refused.
  it('any timeoutSeconds above 0 is accepted; under a millisecond (down to 5e-324) it is kept as one millisecond', async () => {
    // Act
    const answers = await Promise.all(
      [0.0005, 5e-324].map((timeoutSeconds, i) => invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...validBody, jobId: `job-${i}`, timeoutSeconds } })),
    );
    const zero = await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...validBody, jobId: 'job-zero', timeoutSeconds: 0 } });
    // Assess
    expect(answers.map((answer) => answer.statusCode)).toEqual([201, 201]);
    expect((await m.getJob('job-0')).tracking.timeoutSeconds).toBe(0.001);
    expect((await m.getJob('job-1')).tracking.timeoutSeconds).toBe(0.001);
    expect(zero.statusCode).toBe(400);
    expect(errorOf(zero).message).toMatch(/timeoutSeconds: must be more than 0/);
  });

  it('every bad field is named in details, an unknown one included', async () => {
    // Prepare
    const body = { timeoutSeconds: 0, workflows: [], surprise: true };
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).details?.map((d) => d.field).sort()).toEqual(['surprise', 'timeoutSeconds', 'workflows']);
  });

  // First-time user: a field left out was answered "Invalid input: expected number, received undefined".
  it('a required field left out → 400 whose details say it is required, on a job, a progress report and a pool alike', async () => {
    // Prepare
    const submitted = await invoke(submitJob, { method: 'POST', route: '/jobs', body: validBody });
    const token = (submitted.body['workflows'] as Array<{ token: string }>)[0]?.token ?? '';
    // Act
    const job = await invoke(submitJob, { method: 'POST', route: '/jobs', body: { workflows: validBody.workflows } });
    const progress = await invoke(reportProgress, {
      method: 'POST',
      route: '/jobs/{jobId}/workflows/{workflowId}/progress',
      pathParameters: { jobId: 'job-1', workflowId: 'wf-1' },
      headers: { 'x-vigil-token': token },
      body: { progress: 0.5 },
    });
    const pool = await invoke(createPool, { method: 'POST', route: '/pools', body: { poolId: 'p-1', items: [{ input: {} }] } });
    // Assess
    expect([job.statusCode, progress.statusCode, pool.statusCode]).toEqual([400, 400, 400]);
    expect(errorOf(job).details).toEqual([{ field: 'timeoutSeconds', message: 'is required (expected number)' }]);
    expect(errorOf(progress).details).toEqual([{ field: 'workerId', message: 'is required (expected string)' }]);
    expect(errorOf(pool).details).toEqual([{ field: 'items.0.itemId', message: 'is required (expected string)' }]);
    for (const answer of [job, progress, pool]) expect(errorOf(answer).message).not.toMatch(/received undefined/);
  });

  // Review: a schema violation answered `{ field, problem }` while a pool's config answered `{ field, message, allowed? }`.
  it('a schema violation and a refused pool config answer details of one shape: field, message, and allowed for a fixed set', async () => {
    // Prepare
    const submitted = await invoke(submitJob, { method: 'POST', route: '/jobs', body: validBody });
    const token = (submitted.body['workflows'] as Array<{ token: string }>)[0]?.token ?? '';
    // Act
    const complete = await invoke(completeWorkflow, {
      method: 'POST',
      route: '/jobs/{jobId}/workflows/{workflowId}/complete',
      pathParameters: { jobId: 'job-1', workflowId: 'wf-1' },
      headers: { 'x-vigil-token': token },
      body: { workerId: 'worker-a', outcome: 'done', surprise: 1 },
    });
    const pool = await invoke(createPool, {
      method: 'POST',
      route: '/pools',
      body: { poolId: 'p-1', items: [{ itemId: 'a', input: {} }], config: { timeout_config: { timeout_action: 'explode' }, colour: 'red' } },
    });
    // Assess
    const keysOf = (answer: HttpAnswer) => Object.fromEntries((errorOf(answer).details ?? []).map((detail) => [detail.field, Object.keys(detail).sort()]));
    expect([complete.statusCode, pool.statusCode]).toEqual([400, 400]);
    expect(keysOf(complete)).toEqual({ outcome: ['allowed', 'field', 'message'], surprise: ['field', 'message'] });
    expect(keysOf(pool)).toEqual({ 'config.timeout_config.timeout_action': ['allowed', 'field', 'message'], 'config.colour': ['field', 'message'] });
    expect(errorOf(complete).details).toContainEqual({ field: 'outcome', message: expect.any(String), allowed: ['completed', 'failed'] });
  });

  // First-time user: a gate job sent to a region was told only "datacenters: is not a field".
  it('a job with datacenters sent to a region → 400 invalid_request whose datacenters detail says such a job goes to the gate', async () => {
    // Prepare
    const body = { timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows: validBody.workflows } } };
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).code).toBe('invalid_request');
    expect(errorOf(answer).details).toContainEqual({ field: 'datacenters', message: expect.stringMatching(/is submitted to the gate/) });
    expect(errorOf(answer).message).toMatch(/datacenters: is not a field of a region's job: a multi-region job .* gate/);
    expect(await m.snapshot()).toEqual([]);
  });

  it('an unknown field inside a workflow is named by its full path', async () => {
    // Prepare
    const body = { ...validBody, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a', priority: 1 }] };
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).details?.map((d) => d.field)).toEqual(['workflows.0.priority']);
    expect(await m.snapshot()).toEqual([]);
  });

  it('a valid submission → 201, the same again → 200, another body for the same jobId → 409 submission_conflict', async () => {
    // Prepare
    const submit = (body: unknown) => invoke(submitJob, { method: 'POST', route: '/jobs', body });
    // Act
    const first = await submit(validBody);
    const again = await submit(validBody);
    const before = await m.snapshot();
    const conflict = await submit({ ...validBody, timeoutSeconds: 61 });
    // Assess
    expect([first.statusCode, again.statusCode, conflict.statusCode]).toEqual([201, 200, 409]);
    expect(errorOf(conflict).code).toBe('submission_conflict');
    expect(await m.snapshot()).toEqual(before);
  });

  it('GET of an unknown job → 404 job_not_found', async () => {
    // Prepare
    const pathParameters = { jobId: 'no-such-job' };
    // Act
    const answer = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters });
    // Assess
    expect(answer.statusCode).toBe(404);
    expect(errorOf(answer).code).toBe('job_not_found');
  });

  it('cancel of an unknown job → 404 job_not_found, and nothing is stored', async () => {
    // Prepare
    const pathParameters = { jobId: 'no-such-job' };
    // Act
    const answer = await invoke(cancelJob, { method: 'POST', route: '/jobs/{jobId}/cancel', pathParameters, body: {} });
    // Assess
    expect(answer.statusCode).toBe(404);
    expect(await m.snapshot()).toEqual([]);
  });

  it('a path id outside the contract\'s alphabet → 400 naming jobId', async () => {
    // Prepare
    const pathParameters = { jobId: 'bad id!' };
    // Act
    const answer = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).details?.map((d) => d.field)).toEqual(['jobId']);
  });

  // `step` is opaque but bounded.
  it.each([
    ['an out-of-range progress value', { progress: 1.5 }, 'progress'],
    ['an empty step', { step: '' }, 'step'],
    ['a step of 129 characters', { step: 'x'.repeat(129) }, 'step'],
    ['a negative step counter', { step: -1 }, 'step'],
    ['a fractional step counter', { step: 1.5 }, 'step'],
    ['a step that is neither text nor a counter', { step: { n: 1 } }, 'step'],
  ])('progress with %s → 400 naming the field, and the job is unchanged', async (_, fields, field) => {
    // Prepare
    const submitted = await invoke(submitJob, { method: 'POST', route: '/jobs', body: validBody });
    const token = (submitted.body['workflows'] as Array<{ token: string }>)[0]?.token ?? '';
    const before = await m.snapshot();
    // Act
    const answer = await invoke(reportProgress, {
      method: 'POST',
      route: '/jobs/{jobId}/workflows/{workflowId}/progress',
      pathParameters: { jobId: 'job-1', workflowId: 'wf-1' },
      headers: { 'x-vigil-token': token },
      body: { workerId: 'worker-a', ...fields },
    });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).details?.map((d) => d.field)).toEqual([field]);
    expect(await m.snapshot()).toEqual(before);
  });
});
