import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../shared/console/console-server.js';
import type { ForwardedRequest } from '../../shared/console/console-routes.js';
import { rawRequest } from '../support/raw-request.js';

/* ------------------------------------------------------------------------------------------------ */
/* Finding 4: the console server forwards cross-site and DNS-rebound requests with the user's creds. */
/* ------------------------------------------------------------------------------------------------ */


describe('vigil console forwards (signed) only calls of its own page', () => {
  let consoleServer: Awaited<ReturnType<typeof startConsoleServer>>;
  const forwarded: ForwardedRequest[] = [];
  let unused: Server | undefined;
  beforeAll(async () => {
    consoleServer = await startConsoleServer({
      targets: { gate: 'https://abc.execute-api.us-east-1.amazonaws.com', regions: {} },
      port: 0,
      sign: true,
      // Stands in for the signed forwarder: records what would go to AWS with the operator's credentials.
      forward: async (request) => {
        forwarded.push(request);
        return { statusCode: 200, contentType: 'application/json', body: JSON.stringify({ jobs: [{ jobId: 'secret-job' }] }) };
      },
    });
    unused = createServer();
  });
  afterAll(async () => {
    await consoleServer.close();
    unused?.close();
  });
  afterEach(() => {
    forwarded.length = 0;
  });

  it('a cross-site POST (a page on another origin, a no-cors text/plain fetch) is refused, not forwarded signed as a cancel', async () => {
    const port = new URL(consoleServer.url).port;
    // Act
    const answer = await rawRequest(`${consoleServer.url}/console/api/gate/jobs/job-1/cancel`, {
      method: 'POST',
      headers: { host: `127.0.0.1:${port}`, origin: 'https://evil.example', 'content-type': 'text/plain' },
      body: '{}',
    });
    // Assess
    expect(forwarded.map((call) => `${call.method} ${call.url.pathname}`)).toEqual([]);
    expect(answer.status).toBe(403);
  });

  it('a DNS-rebound request (Host is another name) is refused, so another site cannot read the jobs through the signed forwarder', async () => {
    const port = (consoleServer.server.address() as AddressInfo).port;
    // Act
    const answer = await rawRequest(`http://127.0.0.1:${port}/console/api/gate/jobs`, {
      method: 'GET',
      headers: { host: `rebind.evil.example:${port}` },
    });
    // Assess
    expect(answer.body).not.toContain('secret-job');
    expect(forwarded).toEqual([]);
  });
});

describe('vigil console forwards (signed) only calls that carry its key', () => {
  let consoleServer: Awaited<ReturnType<typeof startConsoleServer>>;
  const forwarded: ForwardedRequest[] = [];
  beforeAll(async () => {
    consoleServer = await startConsoleServer({
      targets: { gate: 'https://abc.execute-api.us-east-1.amazonaws.com', regions: {} },
      port: 0,
      sign: true,
      forward: async (request) => {
        forwarded.push(request);
        return { statusCode: 200, contentType: 'application/json', body: JSON.stringify({ jobs: [{ jobId: 'secret-job' }] }) };
      },
    });
  });
  afterAll(() => consoleServer.close());
  afterEach(() => {
    forwarded.length = 0;
  });

  // Another user of this machine reaches 127.0.0.1 as well, and sends whatever Host and Origin it likes.
  const asAnotherLocalUser = (path: string, method: string, key?: string) => {
    const port = new URL(consoleServer.url).port;
    return rawRequest(`${consoleServer.url}${path}`, {
      method,
      headers: { host: `127.0.0.1:${port}`, 'content-type': 'application/json', ...(key !== undefined ? { 'x-vigil-console-key': key } : {}) },
      ...(method === 'POST' ? { body: '{}' } : {}),
    });
  };

  it('a local process without the key (another user of the machine) cannot cancel a job or read the jobs under the operator’s credentials', async () => {
    // Act
    const cancel = await asAnotherLocalUser('/console/api/gate/jobs/job-1/cancel', 'POST');
    const read = await asAnotherLocalUser('/console/api/gate/jobs', 'GET');
    const wrongKey = await asAnotherLocalUser('/console/api/gate/jobs', 'GET', 'guessed');
    const listeners = await asAnotherLocalUser('/console/endpoints', 'GET');
    // Assess
    expect(forwarded).toEqual([]);
    expect([cancel.status, read.status, wrongKey.status, listeners.status]).toEqual([403, 403, 403, 403]);
    expect(read.body).not.toContain('secret-job');
  });

  it('the page and its script need no key (they hold no data); a call with the key is forwarded', async () => {
    // Act
    const page = await asAnotherLocalUser('/', 'GET');
    const script = await asAnotherLocalUser('/console/app.js', 'GET');
    const read = await asAnotherLocalUser('/console/api/gate/jobs', 'GET', consoleServer.key);
    // Assess
    expect([page.status, script.status, read.status]).toEqual([200, 200, 200]);
    expect(forwarded.map((call) => `${call.method} ${call.url.pathname}`)).toEqual(['GET /jobs']);
    expect(consoleServer.key).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(consoleServer.pageUrl).toBe(`${consoleServer.url}/?key=${consoleServer.key}`);
  });
});
