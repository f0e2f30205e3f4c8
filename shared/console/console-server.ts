import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readRequestBody } from '../http/read-request-body.js';
import { consoleRoutes, plainForwarder, rawReplyHeaders, type ConsoleTargets, type Forwarder } from './console-routes.js';
import { keyRefusalOf, refusalOf } from './same-machine.js';
import { signedForwarder } from './signed-forwarder.js';
import { NOT_FRAMEABLE } from './frame-guard.js';

export interface ConsoleServerOptions {
  /** The Vigil listeners the console shows: the gate (if any) and each region's manager. */
  targets: ConsoleTargets;
  /** 0 picks a free port. */
  port: number;
  /** Sign forwarded calls with the user's AWS credentials (a deployed Vigil); false for a local one. */
  sign: boolean;
  /** Signing region when an endpoint's host does not name one. */
  region?: string;
  /** Replaces the forwarder (tests). */
  forward?: Forwarder;
  /** How long a listener has to answer a forwarded call (tests); see forward-within.ts. */
  forwardTimeoutMs?: number;
}

export interface ConsoleServer {
  /** The server's base address (no key). */
  url: string;
  /** The address to open: the page, with the key it sends on every call (see same-machine.ts). */
  pageUrl: string;
  /** The secret every call but the page's and its script's carries in `x-vigil-console-key`. */
  key: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * `vigil console`: serves the operator console on 127.0.0.1 and forwards its API calls to a Vigil
 * (signed for a deployed one). Only this machine can reach it; nothing new is exposed on AWS.
 */
export async function startConsoleServer(options: ConsoleServerOptions): Promise<ConsoleServer> {
  const key = randomBytes(24).toString('base64url');
  const forward = options.forward ?? (options.sign ? signedForwarder(options.region ? { fallbackRegion: options.region } : {}) : plainForwarder);
  const routes = consoleRoutes({
    targets: () => options.targets,
    forward,
    faults: false,
    ...(options.forwardTimeoutMs !== undefined ? { forwardTimeoutMs: options.forwardTimeoutMs } : {}),
  });
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const refusal = refusalOf(request.headers, (server.address() as AddressInfo).port) ?? keyRefusalOf(request.method ?? 'GET', url.pathname, request.headers, key);
      if (refusal !== undefined) {
        response.writeHead(403, { 'content-type': 'application/json', ...NOT_FRAMEABLE });
        response.end(JSON.stringify({ error: { code: 'forbidden', message: refusal } }));
        return;
      }
      const body = await readRequestBody(request).catch(() => undefined);
      if (body === undefined) {
        response.writeHead(413, { 'content-type': 'application/json', ...NOT_FRAMEABLE });
        response.end(JSON.stringify({ error: { code: 'payload_too_large', message: 'The body exceeds 6 MiB, the most a Lambda function is handed in one request; send less per request.' } }));
        return;
      }
      const reply = await routes(request.method ?? 'GET', url, body, request.headers['content-type']);
      const answer = reply ?? {
        statusCode: 404,
        contentType: 'application/json',
        body: JSON.stringify({ error: { code: 'route_not_found', message: `No console route ${url.pathname}. Open / for the console.` } }),
      };
      // The page's own policy replaces NOT_FRAMEABLE's (it says `frame-ancestors 'none'` too).
      response.writeHead(answer.statusCode, { ...NOT_FRAMEABLE, ...rawReplyHeaders(answer) });
      response.end(answer.body);
    } catch (error) {
      // The cause goes to this terminal, not to whoever sent the request.
      process.stderr.write(`vigil console: ${String(error)}\n`);
      response.writeHead(500, { 'content-type': 'application/json', ...NOT_FRAMEABLE });
      response.end(JSON.stringify({ error: { code: 'internal_error', message: 'The console server failed on this request; its terminal says why.' } }));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pageUrl: `http://127.0.0.1:${port}/?key=${key}`,
    key,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
