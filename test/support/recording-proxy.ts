import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  path: string;
  at: number;
  /** What the proxy answered: the upstream status, or the injected failure. */
  status: number;
}

export interface RecordingProxy {
  url: string;
  requests: ProxiedRequest[];
  /** The next `count` requests get a 503 instead of reaching Vigil. */
  failNext(count: number): void;
  close(): Promise<void>;
}

function bodyOf(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/** A loopback HTTP proxy in front of Vigil that records every request and can fail some on purpose. */
export async function startRecordingProxy(target: string): Promise<RecordingProxy> {
  const requests: ProxiedRequest[] = [];
  let failing = 0;
  const server: Server = createServer(async (request, response) => {
    const body = await bodyOf(request);
    const entry = { method: request.method ?? 'GET', path: request.url ?? '/', at: Date.now(), status: 0 };
    requests.push(entry);
    if (failing > 0) {
      failing--;
      entry.status = 503;
      response.writeHead(503, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: { code: 'upstream_unavailable', message: 'injected by the test proxy' } }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string' && name !== 'host') headers[name] = value;
    const upstream = await fetch(`${target}${entry.path}`, { method: entry.method, headers, ...(body.length > 0 ? { body } : {}) });
    entry.status = upstream.status;
    response.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await upstream.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext: (count) => void (failing = count),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
