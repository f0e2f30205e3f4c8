import { beforeEach, describe, expect, it } from 'vitest';
import { handler as completeWorkflow } from '../../functions/api/complete-workflow.js';
import { handler as reportProgress } from '../../functions/api/report-progress.js';
import { handler as requestExtension } from '../../functions/api/request-extension.js';
import { WorkflowTokens } from '../../shared/app/workflow-tokens.js';
import { errorOf, invoke, type HttpRequest } from './support/http-events.js';
import { submit, tokenOf, useHttpTestManager } from './support/test-manager.js';

const progressOf = (jobId: string, workflowId: string, workerId: string, token?: string): HttpRequest => ({
  method: 'POST',
  route: '/jobs/{jobId}/workflows/{workflowId}/progress',
  pathParameters: { jobId, workflowId },
  ...(token !== undefined ? { headers: { 'x-vigil-token': token } } : {}),
  body: { workerId, progress: 0.5 },
});

describe('worker calls are authenticated by the per-workflow token (dynalite)', () => {
  const m = useHttpTestManager();
  let tokens: { a: string; b: string; otherJob: string };
  beforeEach(async () => {
    const job = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-a' },
        { workflowId: 'wf-2', workerId: 'worker-b' },
      ],
    });
    const other = await submit(m, { jobId: 'job-2', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    tokens = { a: tokenOf(job, 'wf-1'), b: tokenOf(job, 'wf-2'), otherJob: tokenOf(other, 'wf-1') };
    // Five seconds on, a valid report would write the job's lastProgressAt.
    m.clock.set(m.clock.now() + 5_000);
  });

  it('the right token is accepted: the baseline for the refusals below', async () => {
    // Prepare
    const request = progressOf('job-1', 'wf-1', 'worker-a', tokens.a);
    // Act
    const answer = await invoke(reportProgress, request);
    // Assess
    expect(answer).toEqual({ statusCode: 200, body: expect.objectContaining({ status: 'RUNNING', cancel: false }) });
  });

  it('progress without a token → 401 missing_token, and nothing is stored', async () => {
    // Prepare
    const before = await m.snapshot();
    // Act
    const answer = await invoke(reportProgress, progressOf('job-1', 'wf-1', 'worker-a'));
    // Assess
    expect(answer.statusCode).toBe(401);
    expect(errorOf(answer).code).toBe('missing_token');
    expect(await m.snapshot()).toEqual(before);
  });

  it('another worker\'s token → 403 invalid_token, and nothing is stored', async () => {
    // Prepare
    const before = await m.snapshot();
    // Act
    const answer = await invoke(reportProgress, progressOf('job-1', 'wf-1', 'worker-a', tokens.b));
    // Assess
    expect(answer.statusCode).toBe(403);
    expect(errorOf(answer).code).toBe('invalid_token');
    expect(await m.snapshot()).toEqual(before);
  });

  it('the worker\'s own token for another job → 403, and nothing is stored', async () => {
    // Prepare
    const before = await m.snapshot();
    // Act
    const answer = await invoke(reportProgress, progressOf('job-1', 'wf-1', 'worker-a', tokens.otherJob));
    // Assess
    expect(answer.statusCode).toBe(403);
    expect(await m.snapshot()).toEqual(before);
  });

  it('a body that claims to be the token\'s owner for another worker\'s workflow → 403', async () => {
    // Prepare
    const request = progressOf('job-1', 'wf-2', 'worker-a', tokens.a);
    // Act
    const answer = await invoke(reportProgress, request);
    // Assess
    expect(answer.statusCode).toBe(403);
  });

  it('a token signed with another secret → 403', async () => {
    // Prepare
    const forged = new WorkflowTokens(Buffer.from('not the region secret')).sign('job-1', 'wf-1', 'worker-a', (await m.getJob('job-1')).incarnation);
    // Act
    const answer = await invoke(reportProgress, progressOf('job-1', 'wf-1', 'worker-a', forged));
    // Assess
    expect(answer.statusCode).toBe(403);
  });

  it('completion with another worker\'s token → 403, and the job keeps running', async () => {
    // Prepare
    const before = await m.snapshot();
    // Act
    const answer = await invoke(completeWorkflow, {
      method: 'POST',
      route: '/jobs/{jobId}/workflows/{workflowId}/complete',
      pathParameters: { jobId: 'job-1', workflowId: 'wf-2' },
      headers: { 'x-vigil-token': tokens.a },
      body: { workerId: 'worker-b', outcome: 'completed' },
    });
    // Assess
    expect(answer.statusCode).toBe(403);
    expect(await m.snapshot()).toEqual(before);
  });

  it('an extension request with another worker\'s token → 403, and no deadline moves', async () => {
    // Prepare
    const before = await m.snapshot();
    // Act
    const answer = await invoke(requestExtension, {
      method: 'POST',
      route: '/workers/{workerId}/extensions',
      pathParameters: { workerId: 'worker-a' },
      headers: { 'x-vigil-token': tokens.b },
      body: { reason: 'long_workflow', currentProgress: 0.3 },
    });
    // Assess
    expect(answer.statusCode).toBe(403);
    expect(await m.snapshot()).toEqual(before);
  });
});
