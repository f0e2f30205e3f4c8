import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleRoutes, plainForwarder } from '../../shared/console/console-routes.js';
import { startConsoleServer } from '../../shared/console/console-server.js';

/** A listener that takes every request and never answers; counts the requests it still holds open. */
async function hangingListener(): Promise<{ url: string; open: () => number; server: Server }> {
  let open = 0;
  const server = createServer((request) => {
    open++;
    request.socket.once('close', () => open--);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, open: () => open, server };
}

describe('the console stops waiting for a listener that does not answer', () => {
  let listener: Awaited<ReturnType<typeof hangingListener>>;
  beforeAll(async () => {
    listener = await hangingListener();
  });
  afterAll(async () => {
    listener.server.closeAllConnections();
    await new Promise((resolve) => listener.server.close(resolve));
  });

  it('answers 504 upstream_timeout once the bound passed, whatever the forwarder (here one that never settles)', async () => {
    const consoleServer = await startConsoleServer({ targets: { regions: { 'eu-west-1': 'http://euw1.vigil.test' } }, port: 0, sign: true, forwardTimeoutMs: 200, forward: () => new Promise(() => {}) });
    try {
      const started = Date.now();
      const answer = await fetch(`${consoleServer.url}/console/api/eu-west-1/jobs`, { headers: { 'x-vigil-console-key': consoleServer.key } });
      expect(answer.status).toBe(504);
      expect(await answer.json()).toEqual({ error: { code: 'upstream_timeout', message: 'eu-west-1 did not answer within 0.2 s; the console stopped waiting.' } });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await consoleServer.close();
    }
  });

  it('the plain forwarder drops the request it gave up on (no connection left open to the listener)', async () => {
    const routes = consoleRoutes({ targets: () => ({ regions: { 'us-east-1': listener.url } }), forward: plainForwarder, faults: false, forwardTimeoutMs: 200 });
    const reply = await routes('GET', new URL('http://127.0.0.1/console/api/us-east-1/jobs'), '');
    expect(reply?.statusCode).toBe(504);
    await expect.poll(listener.open, { timeout: 2_000 }).toBe(0);
  });
});
