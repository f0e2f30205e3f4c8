import { request as httpRequest } from 'node:http';
import type { Server } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as regionUnrouted } from '../../functions/api/unrouted.js';
import { handler as gateUnrouted } from '../../functions/gate-api/unrouted.js';
import { startHttpListener } from '../../shared/local/http-listener.js';
import { matchRoute, type Route } from '../../shared/local/http-routes.js';
import { gateRoutes } from '../../shared/local/local-gate.js';
import { managerRoutes } from '../../shared/local/manager-routes.js';

interface Answer {
  status: number;
  allow: string | undefined;
  body: string;
}

function send(base: string, method: string, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${base}${path}`, { method }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, allow: res.headers['allow'], body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** API Gateway's event for a request its `$default` route took (payload 2.0). */
function defaultRouteEvent(method: string, rawPath: string): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath,
    rawQueryString: '',
    headers: {},
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'api.execute-api.us-east-1.amazonaws.com',
      domainPrefix: 'api',
      http: { method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '203.0.113.1', userAgent: 'vitest' },
      requestId: 'request',
      routeKey: '$default',
      stage: '$default',
      time: new Date(0).toISOString(),
      timeEpoch: 0,
    },
    isBase64Encoded: false,
  };
}

const deployedAnswer = (result: APIGatewayProxyStructuredResultV2): Answer => ({
  status: result.statusCode ?? 200,
  allow: (result.headers?.['Allow'] as string | undefined) ?? undefined,
  body: result.body ?? '',
});

const listeners: Record<'region' | 'gate', { url: string; server: Server; routes: Route[] }> = {} as never;

beforeAll(async () => {
  for (const [name, routes] of [['region', managerRoutes], ['gate', gateRoutes]] as const) {
    const { url, server } = await startHttpListener({ name: name === 'gate' ? 'gate' : 'us-east-1', port: 0, routes });
    listeners[name] = { url, server, routes };
  }
});

afterAll(async () => {
  await Promise.all(Object.values(listeners).map(({ server }) => new Promise((resolve) => server.close(resolve))));
});

const errorOf = (answer: Answer) => (JSON.parse(answer.body) as { error: { code: string; message: string } }).error;

/**
 * Scenario: a request no route takes. The local cloud answered 404 `route_not_found` in the
 * contract's shape to every method on a known path, HEAD and OPTIONS included (`curl -I /health`, a
 * monitor's HEAD probe: 404), with no word of the methods the path does take; a deployed API answered
 * API Gateway's own `{"message":"Not Found"}`, not the contract's shape at all.
 *
 * Correct behaviour (RFC 9110, within the contract's "unknown route → 404"): HEAD is a GET without
 * its body wherever GET is served; OPTIONS on a known path is 204 with `Allow`; another method on
 * a known path is 404 `route_not_found` with `Allow` and a message naming the methods; an unknown
 * path is 404 `route_not_found`. API Gateway's `$default` route answers exactly what the local cloud does.
 */
describe('requests no route takes, locally and deployed', () => {
  it('HEAD on a GET route answers as GET does, without the body', async () => {
    // Act
    const head = await send(listeners.region.url, 'HEAD', '/health');
    const get = await send(listeners.region.url, 'GET', '/health');
    // Assess
    expect([head.status, head.body]).toEqual([200, '']);
    expect(get.status).toBe(200);
  });

  it('OPTIONS on a known path: 204 with Allow naming its methods', async () => {
    // Act
    const jobs = await send(listeners.region.url, 'OPTIONS', '/jobs');
    const cancel = await send(listeners.gate.url, 'OPTIONS', '/jobs/job-1/cancel');
    // Assess
    expect([jobs.status, jobs.allow, jobs.body]).toEqual([204, 'GET, HEAD, OPTIONS, POST', '']);
    expect([cancel.status, cancel.allow]).toEqual([204, 'OPTIONS, POST']);
  });

  it('another method on a known path: 404 route_not_found with Allow, its message naming the methods the path takes', async () => {
    // Act
    const answer = await send(listeners.gate.url, 'DELETE', '/jobs');
    // Assess
    expect([answer.status, answer.allow]).toEqual([404, 'GET, HEAD, OPTIONS, POST']);
    expect(errorOf(answer).code).toBe('route_not_found');
    expect(errorOf(answer).message).toContain('this path takes GET, HEAD, OPTIONS, POST only');
  });

  it('HEAD on a path served by POST only: 404 with Allow, no body', async () => {
    // Act
    const answer = await send(listeners.region.url, 'HEAD', '/jobs/job-1/cancel');
    // Assess
    expect([answer.status, answer.allow, answer.body]).toEqual([404, 'OPTIONS, POST', '']);
  });

  it('an unknown path: 404 route_not_found naming where the routes are listed, no Allow', async () => {
    // Act
    const answer = await send(listeners.region.url, 'GET', '/jobz');
    // Assess
    expect([answer.status, answer.allow]).toEqual([404, undefined]);
    expect(errorOf(answer)).toEqual({ code: 'route_not_found', message: expect.stringContaining('GET /openapi.json lists the routes') });
  });

  it("property: whatever no route takes, the deployed API's $default route answers exactly as the local cloud", async () => {
    const segment = fc.constantFrom('jobs', 'job-1', 'workflows', 'wf-1', 'progress', 'cancel', 'pools', 'p-1', 'items', 'heartbeat', 'health', 'openapi.json', 'x', '%41');
    const request = fc.record({
      which: fc.constantFrom('region' as const, 'gate' as const),
      method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'),
      path: fc.array(segment, { minLength: 0, maxLength: 6 }).map((parts) => `/${parts.join('/')}`),
    });
    await fc.assert(
      fc.asyncProperty(request, async ({ which, method, path }) => {
        const { url, routes } = listeners[which];
        fc.pre(matchRoute(routes, method, path) === undefined);
        const local = await send(url, method, path);
        const deployed = deployedAnswer(await (which === 'gate' ? gateUnrouted : regionUnrouted)(defaultRouteEvent(method, path)));
        // A HEAD answer's body is never sent, over HTTP or by API Gateway.
        expect(local).toEqual(method === 'HEAD' ? { ...deployed, body: '' } : deployed);
      }),
      { numRuns: 300 },
    );
  });
});
