import { describe, expect, it } from 'vitest';
import { handler as getJob } from '../../functions/api/get-job.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { REGION } from '../support/fixtures.js';
import { handler as requestExtension } from '../../functions/api/request-extension.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { errorOf, httpEvent, invoke } from './support/http-events.js';
import { submit, tokenOf, useHttpTestManager } from './support/test-manager.js';

describe('the extension route through its handler (dynalite)', () => {
  useHttpTestManager();

  it('a tenant\'s job, its worker\'s extension with estimatedCompletion and activeWorkflowCount, shown on GET /jobs/{jobId}', async () => {
    // Prepare: submitted locally as tenant team-x
    const submitted = await invoke(submitJob, {
      method: 'POST',
      route: '/jobs',
      headers: { 'x-vigil-tenant': 'team-x' },
      body: { jobId: 'job-1', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] },
    });
    const [workflow] = submitted.body['workflows'] as Array<{ token: string }>;
    // Act
    const granted = await invoke(requestExtension, {
      method: 'POST',
      route: '/workers/{workerId}/extensions',
      pathParameters: { workerId: 'worker-a' },
      headers: { 'x-vigil-token': workflow?.token ?? '' },
      body: { reason: 'long_workflow', currentProgress: 0.3, estimatedCompletion: '2026-03-01T12:30:00Z', activeWorkflowCount: 2 },
    });
    const view = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-1' }, headers: { 'x-vigil-tenant': 'team-x' } });
    // Assess
    expect(submitted.statusCode).toBe(201);
    expect(granted).toMatchObject({ statusCode: 200, body: { granted: true, extensionSeconds: 30 } });
    expect(view.body['timeoutTracking']).toMatchObject({
      workerExtensions: [{ workerId: 'worker-a', extensionSeconds: 30, estimatedCompletion: '2026-03-01T12:30:00Z', activeWorkflowCount: 2 }],
    });
  });
});

describe("the extension route's requestId (dynalite)", () => {
  useHttpTestManager();

  const ask = (token: string, body: Record<string, unknown>) =>
    invoke(requestExtension, { method: 'POST', route: '/workers/{workerId}/extensions', pathParameters: { workerId: 'worker-a' }, headers: { 'x-vigil-token': token }, body });

  it('a request sent again with its requestId is answered with its grant; a requestId that is no id → 400 naming it', async () => {
    // Prepare
    const submitted = await invoke(submitJob, { method: 'POST', route: '/jobs', body: { jobId: 'job-1', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } });
    const token = (submitted.body['workflows'] as Array<{ token: string }>)[0]?.token ?? '';
    const body = { reason: 'long_workflow', currentProgress: 0.3, requestId: 'ask-1' };
    // Act
    const first = await ask(token, body);
    const again = await ask(token, body);
    const bad = await ask(token, { ...body, requestId: 'no spaces' });
    // Assess
    expect(first).toMatchObject({ statusCode: 200, body: { granted: true, extensionSeconds: 30, remainingExtensions: 4 } });
    expect(again).toMatchObject({ statusCode: 200, body: { granted: true, extensionSeconds: 30, remainingExtensions: 4 } });
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).details).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'requestId' })]));
  });
});

/** Lambda's limit for a synchronous answer: the JSON it returns, the body string included. */
const LAMBDA_ANSWER_LIMIT_BYTES = 6 * 1024 * 1024;

const extend = (workerId: string, token: string, estimatedCompletion: string) =>
  invoke(requestExtension, {
    method: 'POST',
    route: '/workers/{workerId}/extensions',
    pathParameters: { workerId },
    headers: { 'x-vigil-token': token },
    body: { reason: 'long_workflow', currentProgress: 0.3, estimatedCompletion },
  });

/** A valid ISO-8601 instant whose fraction has `digits` digits (zod's datetime puts no bound on it). */
const longInstant = (digits: number) => `2026-03-01T12:30:00.${'1'.repeat(digits)}Z`;

// Review finding: zod's ISO time takes any number of fraction digits; the value is stored with the grant and shown again.
describe('the extension request\'s estimatedCompletion is bounded (dynalite)', () => {
  const m = useHttpTestManager();

  it('an estimatedCompletion with 500,000 fractional digits → 400 invalid_request naming the field (not a 500), and nothing is stored', async () => {
    // Prepare
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const before = await m.snapshot();
    // Act
    const answer = await extend('worker-a', tokenOf(submitted, 'wf-1'), longInstant(500_000));
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).code).toBe('invalid_request');
    expect(errorOf(answer).details?.map((d) => d.field)).toContain('estimatedCompletion');
    expect(await m.snapshot()).toEqual(before);
  });

  it('20 workers of one job each granted an extension with a 350 KB estimatedCompletion: GET /jobs/{jobId} still fits a Lambda answer', { timeout: 60_000 }, async () => {
    // Prepare
    const workflows = Array.from({ length: 20 }, (_, i) => ({ workflowId: `wf-${i}`, workerId: `worker-${i}` }));
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 300, workflows });
    for (const w of workflows) {
      const granted = await extend(w.workerId, tokenOf(submitted, w.workflowId), longInstant(350_000));
      if (granted.statusCode !== 200) break; // a bound refusing the field makes the job small again: the check below holds
    }
    // Act
    const answer = await getJob(httpEvent({ method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-1' } }), localContext('vigil-test', REGION));
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(Buffer.byteLength(JSON.stringify(answer), 'utf8')).toBeLessThan(LAMBDA_ANSWER_LIMIT_BYTES);
  });
});
