import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handler as workerUrl } from '../../functions/worker/function-url.js';
import { managerRoutes } from '../../shared/local/manager-routes.js';
import { jobWorkerRoutes } from '../../shared/local/job-worker-routes.js';
import { poolAgentRoutes, poolClientRoutes } from '../../functions/pools/routes.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { REGION } from '../support/fixtures.js';
import { claim, newPool } from './pools/pool-test-support.js';
import { submit, tokenOf, useHttpTestManager } from './support/test-manager.js';

interface UrlRequest {
  method: string;
  /** As the caller sent it: percent-encoded. */
  rawPath: string;
  token?: string;
  body?: unknown;
  base64?: boolean;
}

/** A Lambda function URL event (payload 2.0): the `$default` route key, no path parameters, no stage variables. */
function functionUrlEvent(request: UrlRequest): APIGatewayProxyEventV2 {
  const json = request.body === undefined ? undefined : JSON.stringify(request.body);
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: request.rawPath,
    rawQueryString: '',
    headers: { 'content-type': 'application/json', ...(request.token !== undefined ? { 'x-vigil-token': request.token } : {}) },
    requestContext: {
      accountId: 'anonymous',
      apiId: 'worker-url',
      domainName: 'worker-url.lambda-url.us-east-1.on.aws',
      domainPrefix: 'worker-url',
      http: { method: request.method, path: request.rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: 'url-request',
      routeKey: '$default',
      stage: '$default',
      time: new Date(0).toISOString(),
      timeEpoch: 0,
    },
    ...(json !== undefined ? { body: request.base64 ? Buffer.from(json).toString('base64') : json } : {}),
    isBase64Encoded: request.base64 ?? false,
  };
}

async function call(request: UrlRequest): Promise<{ statusCode: number; body: Record<string, unknown> }> {
  const result = await workerUrl(functionUrlEvent(request), localContext('vigil-worker-url', REGION));
  return { statusCode: result.statusCode ?? 200, body: JSON.parse(result.body ?? '{}') as Record<string, unknown> };
}

const codeOf = (answer: { body: Record<string, unknown> }) => (answer.body['error'] as { code: string } | undefined)?.code;

describe('the worker function URL serves the token routes through the same handlers (dynalite)', () => {
  const m = useHttpTestManager();

  async function oneJob() {
    const job = await submit(m, { jobId: 'job:1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    return tokenOf(job, 'wf-1');
  }

  it('progress by path, with percent-encoded ids: the report is stored as through API Gateway', async () => {
    // Prepare
    const token = await oneJob();
    m.clock.set(m.clock.now() + 5_000);
    // Act
    const answer = await call({ method: 'POST', rawPath: '/jobs/job%3A1/workflows/wf-1/progress', token, body: { workerId: 'worker-a', progress: 0.4 } });
    // Assess
    expect(answer).toEqual({ statusCode: 200, body: expect.objectContaining({ status: 'RUNNING', cancel: false, progressed: true }) });
    const workflow = await m.deps.jobs.getWorkflow('job:1', 'wf-1');
    expect(workflow?.progress).toBe(0.4);
  });

  it('an extension and a completion by path; a base64 body (as a function URL sends non-text types) is read too', async () => {
    // Prepare
    const token = await oneJob();
    // Act
    const extension = await call({ method: 'POST', rawPath: '/workers/worker-a/extensions', token, body: { reason: 'long_workflow', currentProgress: 0.5 }, base64: true });
    const completion = await call({ method: 'POST', rawPath: '/jobs/job%3A1/workflows/wf-1/complete', token, body: { workerId: 'worker-a', outcome: 'completed' } });
    // Assess
    expect(extension.statusCode).toBe(200);
    expect(extension.body['granted']).toBe(true);
    expect(completion.statusCode).toBe(200);
    expect((await m.deps.jobs.getJob('job:1'))?.status).toBe('COMPLETED');
  });

  it("an agent's heartbeat by path: the attempt's token is checked as on API Gateway", async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 600 });
    const claimed = await claim(m.deps, 'agent-1');
    const path = `/pools/p/items/${claimed.itemId}/heartbeat`;
    const body = { agentId: 'agent-1', attempt: claimed.attempt };
    // Act
    const accepted = await call({ method: 'POST', rawPath: path, token: claimed.token, body });
    const forged = await call({ method: 'POST', rawPath: path, token: `${claimed.token}x`, body });
    // Assess
    expect(accepted).toEqual({ statusCode: 200, body: expect.objectContaining({ action: 'continue' }) });
    expect(forged.statusCode).toBe(403);
  });

  it('every worker and agent route is served: an empty call reaches its handler, whose schema refuses it (400), never 404', async () => {
    // Prepare
    const routes = [...jobWorkerRoutes, ...poolAgentRoutes];
    // Act
    const answers = await Promise.all(
      routes.map(async (route) => [`${route.method} ${route.path}`, codeOf(await call({ method: route.method, rawPath: route.path.replace(/\{\w+\}/g, '1'), body: {} }))] as const),
    );
    // Assess
    expect(routes.length).toBe(9);
    expect(answers).toEqual(routes.map((route) => [`${route.method} ${route.path}`, 'invalid_request']));
  });

  it('a wrong token or none is refused and changes nothing', async () => {
    // Prepare
    await oneJob();
    const before = await m.snapshot();
    const path = '/jobs/job%3A1/workflows/wf-1/progress';
    // Act
    const missing = await call({ method: 'POST', rawPath: path, body: { workerId: 'worker-a', progress: 0.9 } });
    const wrong = await call({ method: 'POST', rawPath: path, token: 'not-a-token', body: { workerId: 'worker-a', progress: 0.9 } });
    // Assess
    expect([missing.statusCode, codeOf(missing)]).toEqual([401, 'missing_token']);
    expect(wrong.statusCode).toBe(403);
    expect(await m.snapshot()).toEqual(before);
  });

  it('no client route is reachable through the URL, which has no IAM check: each is 404 and changes nothing', async () => {
    // Prepare
    await oneJob();
    const before = await m.snapshot();
    const clientRoutes = [...managerRoutes, ...poolClientRoutes].filter((route) => route.doc.auth !== 'worker');
    // Act
    const answers = await Promise.all(
      clientRoutes.map(async (route) => {
        const rawPath = route.path.replace(/\{\w+\}/g, 'job%3A1');
        return [`${route.method} ${route.path}`, codeOf(await call({ method: route.method, rawPath, body: {} }))] as const;
      }),
    );
    // Assess
    expect(clientRoutes.length).toBeGreaterThan(15);
    expect(answers).toEqual(clientRoutes.map((route) => [`${route.method} ${route.path}`, 'route_not_found']));
    expect(await m.snapshot()).toEqual(before);
  });

  it('a worker route under another method, or a path with broken percent-encoding, is refused with a clear error', async () => {
    // Prepare
    const token = await oneJob();
    // Act
    const wrongMethod = await call({ method: 'GET', rawPath: '/jobs/job%3A1/workflows/wf-1/progress', token });
    const badEncoding = await call({ method: 'POST', rawPath: '/jobs/job%zz/workflows/wf-1/progress', token, body: { workerId: 'worker-a', progress: 0.4 } });
    // Assess
    expect([wrongMethod.statusCode, codeOf(wrongMethod)]).toEqual([404, 'route_not_found']);
    expect(JSON.stringify(wrongMethod.body)).toContain('this path takes OPTIONS, POST only');
    expect(JSON.stringify(wrongMethod.body)).toContain('API URL');
    expect([badEncoding.statusCode, codeOf(badEncoding)]).toEqual([400, 'invalid_request']);
  });

  it('property: whatever the path, method and body, a caller without a valid token gets 400, 401, 403 or 404 (OPTIONS: 204), and nothing changes', async () => {
    // Prepare: a job and a pool with a running attempt, so real ids are among the candidates
    await oneJob();
    await newPool(m.deps, { agent_timeout_secs: 600 });
    const claimed = await claim(m.deps, 'agent-1');
    const before = await m.snapshot();
    const segment = fc.oneof(
      fc.constantFrom('jobs', 'job:1', 'job%3A1', 'workflows', 'wf-1', 'progress', 'complete', 'workers', 'worker-a', 'extensions', 'failure', 'cancel', 'takeover', 'tokens'),
      fc.constantFrom('pools', 'p', 'items', claimed.itemId, 'heartbeat', 'commands', '0', 'start', 'finish', 'checkpoints', 'terminated', 'claims', 'dlq', 'retry', 'metrics'),
      fc.constantFrom('', '.', '..', '%2F', '%2e%2e', '%zz', 'JOBS', '{jobId}'),
    );
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'post'),
      rawPath: fc.array(segment, { minLength: 0, maxLength: 7 }).map((parts) => `/${parts.join('/')}`),
      token: fc.option(fc.constantFrom('not-a-token', `${claimed.token}x`, ''), { nil: undefined }),
      body: fc.constantFrom<unknown>(undefined, {}, { workerId: 'worker-a', progress: 0.5 }, { agentId: 'agent-1', attempt: claimed.attempt }, { reason: 'long_workflow', currentProgress: 0.9 }),
    });
    // Act and assess
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const answer = await call(r);
        // OPTIONS on a worker route's path only names its methods (204 with Allow).
        expect(r.method === 'OPTIONS' ? [204, 400, 404] : [400, 401, 403, 404], JSON.stringify({ r, answer })).toContain(answer.statusCode);
      }),
      { numRuns: 300 },
    );
    expect(await m.snapshot()).toEqual(before);
  }, 60_000);
});
