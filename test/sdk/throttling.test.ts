import { describe, expect, it } from 'vitest';
import { startWorkflow } from '../../shared/sdk/index.js';
import { countCalls, errorReply, iso, useFakeVigil } from '../support/fake-vigil.js';

describe('the worker SDK under API Gateway throttling', () => {
  const vigil = useFakeVigil();

  it('a workflow complete answered 429 (API Gateway throttling) is retried with backoff and succeeds', async () => {
    // Prepare: infra/config/route-throttles.ts — "above the limits a worker gets 429 and retries with backoff"
    const fake = await vigil.fakeVigil((method, path, _body, seen) => {
      if (path.endsWith('/progress')) return { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: iso(Date.now() + 60_000) } };
      if (path.endsWith('/complete')) {
        return seen.filter((s) => s.method === 'POST' && s.path.endsWith('/complete')).length === 1
          ? { status: 429, text: '{"message":"Too Many Requests"}' }
          : { status: 200, body: { jobId: 'job-1', workflowId: 'wf-1', state: 'completed', jobStatus: 'COMPLETED' } };
      }
      return errorReply(404, 'route_not_found', 'no');
    });
    const work = await startWorkflow({ endpoint: fake.url, jobId: 'job-1', workflowId: 'wf-1', workerId: 'w', token: 't', stuckThresholdSeconds: 60, retry: { baseDelayMs: 1, maxDelayMs: 5 } });
    // Act
    const outcome = await work.complete('completed').catch((error: unknown) => error);
    work.stop();
    // Assess
    expect(outcome instanceof Error ? `${outcome.name}: ${outcome.message}` : outcome).toMatchObject({ jobStatus: 'COMPLETED' });
    expect(countCalls(fake, 'POST', '/complete')).toBe(2);
  });
});

