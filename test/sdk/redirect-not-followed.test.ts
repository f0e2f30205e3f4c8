import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VigilApiError, VigilHttp } from '../../shared/sdk/index.js';

/**
 * fetch follows a redirect to any host, and there drops only `Authorization`: a worker's
 * `x-vigil-token`, a SigV4 call's `x-amz-security-token` and the body went wherever a 3xx named.
 * Vigil never redirects (API Gateway, a function URL, the local cloud), so a 3xx is answered back
 * as a refusal, as the console's forwarders do (console-routes.ts, signed-forwarder.ts).
 */
describe('the SDK never follows a redirect', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  async function listen(answer: (url: string, headers: IncomingHttpHeaders) => { status: number; headers?: Record<string, string>; body?: unknown }): Promise<string> {
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        const { status, headers = {}, body } = answer(request.url ?? '/', request.headers);
        response.writeHead(status, { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) });
        response.end(body === undefined ? undefined : JSON.stringify(body));
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it("a worker call answered 307 to another host is refused there and then: its token and body never reach that host, and it is not tried again", async () => {
    // Prepare: a host that takes whatever it is sent, and a Vigil endpoint that redirects there
    const elsewhere: Array<{ url: string; token: string | string[] | undefined }> = [];
    const other = await listen((url, headers) => (elsewhere.push({ url, token: headers['x-vigil-token'] }), { status: 200, body: { status: 'RUNNING', cancel: false, deadlineAt: new Date().toISOString() } }));
    let tries = 0;
    const endpoint = await listen((url) => (tries++, { status: 307, headers: { location: `${other}${url}` } }));
    const http = new VigilHttp({ endpoint });
    // Act
    const outcome = await http.call('POST', '/jobs/j/workflows/wf/progress', { body: { workerId: 'w' }, token: 'the-workflow-token' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    // Assess
    expect(elsewhere).toEqual([]);
    expect(outcome).toBeInstanceOf(VigilApiError);
    expect((outcome as VigilApiError).status).toBe(307);
    expect((outcome as VigilApiError).message).toContain(other);
    expect(tries).toBe(1);
  });
});
