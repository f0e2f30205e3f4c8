import { describe, expect, it } from 'vitest';
import { handler as getJob } from '../../functions/api/get-job.js';
import { handler as requestExtension } from '../../functions/api/request-extension.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { invoke } from './support/http-events.js';
import { useHttpTestManager } from './support/test-manager.js';

describe('the extension route through its handler (dynalite)', () => {
  useHttpTestManager();

  it('finding 18 and 14: a tenant\'s job, its worker\'s extension with estimatedCompletion and activeWorkflowCount, shown on GET /jobs/{jobId}', async () => {
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
