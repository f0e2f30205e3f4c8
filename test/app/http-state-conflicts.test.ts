import { beforeEach, describe, expect, it } from 'vitest';
import { handler as cancelJob } from '../../functions/api/cancel-job.js';
import { handler as completeWorkflow } from '../../functions/api/complete-workflow.js';
import { handler as getJob } from '../../functions/api/get-job.js';
import { handler as takeOverJob } from '../../functions/api/take-over-job.js';
import { errorOf, invoke } from './support/http-events.js';
import { submit, tokenOf, useHttpTestManager } from './support/test-manager.js';

describe('HTTP: a finished job cannot change (dynalite)', () => {
  const m = useHttpTestManager();
  let token: string;
  beforeEach(async () => {
    token = tokenOf(await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }), 'wf-1');
  });

  const cancel = (reason?: string) =>
    invoke(cancelJob, { method: 'POST', route: '/jobs/{jobId}/cancel', pathParameters: { jobId: 'job-1' }, body: reason ? { reason } : {} });

  const complete = () =>
    invoke(completeWorkflow, {
      method: 'POST',
      route: '/jobs/{jobId}/workflows/{workflowId}/complete',
      pathParameters: { jobId: 'job-1', workflowId: 'wf-1' },
      headers: { 'x-vigil-token': token },
      body: { workerId: 'worker-a', outcome: 'completed' },
    });

  it('cancel of a running job → 200 CANCELLED, and GET shows the reason and the workflow cancelled', async () => {
    // Prepare
    const reason = 'no longer needed';
    // Act
    const answer = await cancel(reason);
    const view = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-1' } });
    // Assess
    expect(answer).toEqual({ statusCode: 200, body: { jobId: 'job-1', status: 'CANCELLED' } });
    expect(view.body).toMatchObject({ status: 'CANCELLED', cancelReason: reason, workflows: [{ workflowId: 'wf-1', state: 'cancelled' }] });
  });

  it('cancel of a completed job → 409 job_finished, and the stored job is unchanged', async () => {
    // Prepare
    expect((await complete()).statusCode).toBe(200);
    const before = await m.snapshot();
    // Act
    const answer = await cancel('too late');
    // Assess
    expect(answer.statusCode).toBe(409);
    expect(errorOf(answer).code).toBe('job_finished');
    expect(await m.snapshot()).toEqual(before);
  });

  it('cancel of a cancelled job → 409, and the first reason stays', async () => {
    // Prepare
    await cancel('first');
    // Act
    const answer = await cancel('second');
    // Assess
    expect(answer.statusCode).toBe(409);
    expect((await m.getJob('job-1')).cancelReason).toBe('first');
  });

  it('completion of a workflow of a cancelled job → 409 job_finished, and the job stays CANCELLED', async () => {
    // Prepare
    await cancel();
    const before = await m.snapshot();
    // Act
    const answer = await complete();
    // Assess
    expect(answer.statusCode).toBe(409);
    expect(errorOf(answer).code).toBe('job_finished');
    expect(await m.snapshot()).toEqual(before);
  });

  it('takeover of a finished job → 409, and its fence token stays', async () => {
    // Prepare
    await cancel();
    // Act
    const answer = await invoke(takeOverJob, { method: 'POST', route: '/jobs/{jobId}/takeover', pathParameters: { jobId: 'job-1' } });
    // Assess
    expect(answer.statusCode).toBe(409);
    expect((await m.getJob('job-1')).tracking.fenceToken).toBe(1);
  });
});
