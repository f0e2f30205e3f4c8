import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Vigil whose clock reads `skewMs` off the machine's (negative: behind), or (`vigilOnClock`)
 * any clock, a frozen one as the local cloud's virtual clock is between advances. Every answer carries
 * that clock in its HTTP `Date` header, as API Gateway, a Lambda function URL and the local cloud's
 * listeners all send one, so a client can tell Vigil's time from its own. A route may answer `hang`
 * (no answer at all: Vigil unreachable).
 */
export interface SkewedVigil {
  url: string;
  calls: Array<{ method: string; path: string; body: unknown; vigilNow: number }>;
  vigilNow(): number;
  close(): Promise<void>;
}

export type SkewedRoute = (method: string, path: string, body: unknown, vigilNow: number) => { status: number; body?: unknown } | 'hang';

export const skewedVigil = (skewMs: number, route: SkewedRoute): Promise<SkewedVigil> => vigilOnClock(() => Date.now() + skewMs, route);

export async function vigilOnClock(vigilNow: () => number, route: SkewedRoute): Promise<SkewedVigil> {
  const calls: SkewedVigil['calls'] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString()));
    request.on('end', () => {
      let body: unknown;
      try {
        body = text === '' ? undefined : JSON.parse(text);
      } catch {
        body = text;
      }
      const now = vigilNow();
      calls.push({ method: request.method ?? 'GET', path: request.url ?? '/', body, vigilNow: now });
      const reply = route(request.method ?? 'GET', request.url ?? '/', body, now);
      if (reply === 'hang') return void hanging.push(response);
      response.statusCode = reply.status;
      response.setHeader('date', new Date(now).toUTCString());
      if (reply.body === undefined) return void response.end();
      response.setHeader('content-type', 'application/json');
      response.end(JSON.stringify(reply.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    vigilNow,
    close: () =>
      new Promise<void>((resolve) => {
        for (const response of hanging) response.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const iso = (ms: number) => new Date(ms).toISOString();
