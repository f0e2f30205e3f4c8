import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { signedForwarder } from '../../shared/console/signed-forwarder.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Stands in for a deployed Vigil's API: records what arrives, answers like the API. */
async function recordingApi(): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      response.writeHead(409, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'already_answered', message: 'answered before' } }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

describe('vigil console: the page served locally, API calls forwarded signed', () => {
  let api: Awaited<ReturnType<typeof recordingApi>>;
  let consoleServer: Awaited<ReturnType<typeof startConsoleServer>>;
  beforeAll(async () => {
    api = await recordingApi();
    consoleServer = await startConsoleServer({
      targets: { regions: { 'eu-west-1': api.url } },
      port: 0,
      sign: true,
      forward: signedForwarder({ fallbackRegion: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' } }),
    });
  });
  afterAll(async () => {
    await consoleServer.close();
    await new Promise((resolve) => api.server.close(resolve));
  });

  it('serves the page and its bundled script', async () => {
    const page = await fetch(`${consoleServer.url}/`);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('/console/app.js');
    const script = await fetch(`${consoleServer.url}/console/app.js`);
    expect(script.headers.get('content-type')).toContain('javascript');
    expect((await script.text()).length).toBeGreaterThan(1_000);
    expect(await (await fetch(`${consoleServer.url}/console/endpoints`, { headers: { 'x-vigil-console-key': consoleServer.key } })).json()).toEqual({ gate: false, regions: ['eu-west-1'], faults: false });
  });

  it('forwards a call with a SigV4 signature for execute-api, and hands the API’s answer back unchanged', async () => {
    // Act
    const answer = await fetch(`${consoleServer.url}/console/api/eu-west-1/escalations/e-1/answer?x=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-vigil-console-key': consoleServer.key },
      body: JSON.stringify({ option: 'skip' }),
    });
    // Assess
    expect(answer.status).toBe(409);
    expect(await answer.json()).toEqual({ error: { code: 'already_answered', message: 'answered before' } });
    const [call] = api.seen;
    expect(call?.method).toBe('POST');
    expect(call?.url).toBe('/escalations/e-1/answer?x=1');
    expect(call?.body).toBe('{"option":"skip"}');
    expect(call?.headers['authorization']).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/execute-api\/aws4_request, SignedHeaders=[a-z0-9;-]*host[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
    );
    expect(call?.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
  });

  it('an unknown listener is a 404 that names the ones it knows', async () => {
    const answer = await fetch(`${consoleServer.url}/console/api/mars-1/jobs`, { headers: { 'x-vigil-console-key': consoleServer.key } });
    expect(answer.status).toBe(404);
    expect(((await answer.json()) as { error: { message: string } }).error.message).toContain('eu-west-1');
  });
});


// Console review (noticed): fetch follows redirects, and on another host it drops Authorization
// but not the session token: an API answering a redirect would have handed it to anyone.
describe('vigil console: a redirect from an API is answered back, not followed with the credentials', () => {
  it('the forwarder hands the redirect back and nothing reaches its target', async () => {
    // Prepare: an "API" that redirects to a host that records what reaches it
    const elsewhere = await recordingApi();
    const redirecting = createServer((_request, response) => {
      response.writeHead(302, { location: `${elsewhere.url}/steal` });
      response.end();
    });
    await new Promise<void>((resolve) => redirecting.listen(0, '127.0.0.1', () => resolve()));
    const forward = signedForwarder({
      fallbackRegion: 'eu-west-1',
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example', sessionToken: 'session-token-example' },
    });
    // Act
    const answer = await forward({ method: 'GET', url: new URL(`http://127.0.0.1:${(redirecting.address() as AddressInfo).port}/jobs`), body: '' });
    await new Promise((resolve) => redirecting.close(resolve));
    await new Promise((resolve) => elsewhere.server.close(resolve));
    // Assess
    expect(answer.statusCode).toBe(302);
    expect(elsewhere.seen).toEqual([]);
  });
});
