import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes, plainForwarder } from '../../shared/console/console-routes.js';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { signedForwarder } from '../../shared/console/signed-forwarder.js';
import { startHttpListener } from '../../shared/local/http-listener.js';

/** Answers every request like a Vigil whose keys are refreshing: 503 with `Retry-After: 7`. */
async function refreshingApi(): Promise<{ url: string; server: Server }> {
  const server = createServer((_request, response) => {
    response.writeHead(503, { 'content-type': 'application/json', 'retry-after': '7' });
    response.end(JSON.stringify({ error: { code: 'keys_refreshing', message: 'try again in 7 s' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const closeServer = (server: Server) => new Promise((resolve) => server.close(resolve));

// Noticed in review: the console handed back status, type and body but not `Retry-After`, so a
// caller behind it could not back off as long as Vigil asked.
describe('the console hands an upstream’s Retry-After back with its answer', () => {
  let api: Awaited<ReturnType<typeof refreshingApi>>;
  beforeAll(async () => {
    api = await refreshingApi();
  });
  afterAll(() => closeServer(api.server));

  it.each([
    ['signed (a deployed Vigil)', true],
    ['plain (the local cloud)', false],
  ])('vigil console, %s', async (_name, sign) => {
    const forward = sign ? signedForwarder({ fallbackRegion: 'eu-west-1', credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example' } }) : plainForwarder;
    const consoleServer = await startConsoleServer({ targets: { regions: { 'eu-west-1': api.url } }, port: 0, sign, forward });
    try {
      const answer = await fetch(`${consoleServer.url}/console/api/eu-west-1/jobs/j-1`, { headers: { 'x-vigil-console-key': consoleServer.key } });
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('7');
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe('keys_refreshing');
    } finally {
      await consoleServer.close();
    }
  });

  it('the local cloud’s listener, which serves the console on the gate’s port', async () => {
    const listener = await startHttpListener({
      name: 'gate',
      port: 0,
      routes: [],
      raw: consoleRoutes({ targets: () => ({ regions: { 'us-east-1': api.url } }), forward: plainForwarder, faults: false }),
    });
    try {
      const answer = await fetch(`${listener.url}/console/api/us-east-1/jobs/j-1`);
      expect(answer.status).toBe(503);
      expect(answer.headers.get('retry-after')).toBe('7');
    } finally {
      await closeServer(listener.server);
    }
  });

  it('an answer without one gets none', async () => {
    const plain = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"jobs":[]}');
    });
    await new Promise<void>((resolve) => plain.listen(0, '127.0.0.1', () => resolve()));
    const routes = consoleRoutes({ targets: () => ({ regions: { r: `http://127.0.0.1:${(plain.address() as AddressInfo).port}` } }), forward: plainForwarder, faults: false });
    const reply = await routes('GET', new URL('http://127.0.0.1/console/api/r/jobs'), '');
    await closeServer(plain);
    expect(reply).toEqual({ statusCode: 200, contentType: 'application/json', body: '{"jobs":[]}' });
  });
});
