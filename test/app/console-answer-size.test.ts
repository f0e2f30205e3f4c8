import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_FORWARDED_ANSWER_BYTES } from '../../shared/console/answer-too-large-error.js';
import { consoleRoutes, plainForwarder } from '../../shared/console/console-routes.js';

/** A listener that streams `bytes` of JSON-looking text, in 64 KB chunks; counts what it wrote. */
async function streamingListener(bytes: number): Promise<{ url: string; written: () => number; server: Server }> {
  let written = 0;
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const more = () => {
      while (written < bytes && !response.destroyed) {
        written += chunk.byteLength;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      response.end();
    };
    more();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, written: () => written, server };
}

/**
 * Scenario (console review, noticed): the console read a forwarded answer whole, bounded only by its
 * 10 s wait, so whatever listened on a Vigil's port (a local user's squatter once `npm start`
 * stopped) could stream into the console's memory for 10 s.
 * Correct: it reads at most 8 MB (Lambda answers at most 6 MB), then drops the answer with a 502
 * that says so; an answer of Vigil's largest size still comes through whole.
 */
describe('the console reads a bounded share of an upstream answer', () => {
  let endless: Awaited<ReturnType<typeof streamingListener>>;
  let largest: Awaited<ReturnType<typeof streamingListener>>;
  beforeAll(async () => {
    endless = await streamingListener(Number.MAX_SAFE_INTEGER);
    largest = await streamingListener(6 * 1024 * 1024);
  });
  afterAll(async () => {
    for (const listener of [endless, largest]) {
      listener.server.closeAllConnections();
      await new Promise((resolve) => listener.server.close(resolve));
    }
  });

  it('an endless answer is dropped past 8 MB with 502 upstream_answer_too_large', async () => {
    const routes = consoleRoutes({ targets: () => ({ regions: { 'us-east-1': endless.url } }), forward: plainForwarder, faults: false });
    // Act
    const reply = await routes('GET', new URL('http://127.0.0.1/console/api/us-east-1/jobs'), '');
    // Assess
    expect(reply?.statusCode).toBe(502);
    expect(JSON.parse(reply?.body ?? '{}').error.code).toBe('upstream_answer_too_large');
    expect(endless.written()).toBeLessThan(MAX_FORWARDED_ANSWER_BYTES * 4);
  });

  it("an answer of Lambda's 6 MB comes through whole", async () => {
    const routes = consoleRoutes({ targets: () => ({ regions: { 'us-east-1': largest.url } }), forward: plainForwarder, faults: false });
    const reply = await routes('GET', new URL('http://127.0.0.1/console/api/us-east-1/jobs'), '');
    expect(reply?.statusCode).toBe(200);
    expect(reply?.body.length).toBe(6 * 1024 * 1024);
  });
});
