import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../shared/console/console-server.js';

/*
 * API Gateway answers some calls itself, before any Vigil code runs, with its own body
 * (`{"message":"Forbidden"}` for a refused signature), which an HTTP API cannot reshape. The console
 * handed that body on, and its page showed a bare "HTTP 403". It now answers in the contract's shape,
 * with what the answer means and how to fix it; Vigil's own answers pass unchanged.
 */
describe("vigil console and API Gateway's own answers", () => {
  let consoleServer: Awaited<ReturnType<typeof startConsoleServer>>;
  const answers: Record<string, { status: number; body: string; retryAfter?: string }> = {
    '/jobs': { status: 403, body: '{"message":"Forbidden"}' },
    '/pools': { status: 429, body: '{"message":"Too Many Requests"}', retryAfter: '3' },
    '/jobs/missing': { status: 404, body: '{"error":{"code":"job_not_found","message":"No job missing."}}' },
  };
  const api = createServer((request, response) => {
    const answer = answers[request.url ?? ''] ?? { status: 200, body: '{}' };
    response.writeHead(answer.status, { 'content-type': 'application/json', ...(answer.retryAfter ? { 'retry-after': answer.retryAfter } : {}) });
    response.end(answer.body);
  });
  const call = async (path: string) => {
    const answer = await fetch(`${consoleServer.url}/console/api/us-east-1${path}`, { headers: { 'x-vigil-console-key': consoleServer.key } });
    return { status: answer.status, retryAfter: answer.headers.get('retry-after'), body: (await answer.json()) as { error: { code: string; message: string } } };
  };
  beforeAll(async () => {
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
    consoleServer = await startConsoleServer({ targets: { regions: { 'us-east-1': `http://127.0.0.1:${(api.address() as AddressInfo).port}` } }, port: 0, sign: false });
  });
  afterAll(async () => {
    await consoleServer.close();
    await new Promise((resolve) => api.close(resolve));
  });

  it('a refused signature (403 {"message":"Forbidden"}) is forbidden, naming the call and the credentials to check', async () => {
    // Act
    const answer = await call('/jobs');
    // Assess
    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('forbidden');
    expect(answer.body.error.message).toContain('GET /jobs on us-east-1');
    expect(answer.body.error.message).toContain('AWS_PROFILE');
  });

  it("a throttle keeps its status and Retry-After, and says it was the route's rate limit", async () => {
    // Act
    const answer = await call('/pools');
    // Assess
    expect({ status: answer.status, retryAfter: answer.retryAfter, code: answer.body.error.code }).toEqual({ status: 429, retryAfter: '3', code: 'throttled' });
  });

  it("Vigil's own error answers pass unchanged", async () => {
    // Act
    const answer = await call('/jobs/missing');
    // Assess
    expect(answer).toMatchObject({ status: 404, body: { error: { code: 'job_not_found', message: 'No job missing.' } } });
  });
});
