import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { errorResponse } from '../http/error-response.js';
import { RouteNotFoundError } from '../domain/errors.js';
import { localContext } from './lambda-context.js';
import { matchRoute, type Route } from './http-routes.js';

/** API Gateway's payload limit. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;

export interface ListenerOptions {
  /** The region (or `gate`) this listener serves; handed to handlers as a stage variable. */
  name: string;
  port: number;
  routes: readonly Route[];
  /** Extra local-only routes (fault injection, metrics) answered before the API routes. */
  extra?: (method: string, path: string, body: string) => Promise<{ statusCode: number; body: unknown } | undefined>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('body too large'));
        request.destroy();
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function send(response: ServerResponse, statusCode: number, body: string, headers: Record<string, string> = {}) {
  response.writeHead(statusCode, { 'content-type': 'application/json', ...headers });
  response.end(body);
}

function toApiGatewayEvent(
  request: IncomingMessage,
  url: URL,
  body: string,
  routeKey: string,
  pathParameters: Record<string, string>,
  stage: string,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const method = request.method ?? 'GET';
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(url.search ? { queryStringParameters: Object.fromEntries(url.searchParams) } : {}),
    headers,
    pathParameters,
    stageVariables: { region: stage },
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: url.host,
      domainPrefix: 'local',
      http: { method, path: url.pathname, protocol: 'HTTP/1.1', sourceIp: request.socket.remoteAddress ?? '', userAgent: headers['user-agent'] ?? '' },
      requestId: crypto.randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date().toISOString(),
      timeEpoch: Date.now(),
    },
    body,
    isBase64Encoded: false,
  };
}

/** One HTTP listener that turns requests into API Gateway v2 events for the route's handler. */
export async function startHttpListener(options: ListenerOptions): Promise<{ url: string; server: Server }> {
  const server = createServer(async (request, response) => {
    try {
      const url = new URL(request.url ?? '/', 'http://localhost');
      const method = request.method ?? 'GET';
      let body: string;
      try {
        body = await readBody(request);
      } catch {
        send(response, 413, JSON.stringify({ error: { code: 'payload_too_large', message: 'The body exceeds 6 MiB. Send fewer workflows per job.' } }));
        return;
      }
      const extra = await options.extra?.(method, url.pathname, body);
      if (extra) {
        send(response, extra.statusCode, JSON.stringify(extra.body));
        return;
      }
      const matched = matchRoute(options.routes, method, url.pathname);
      if (!matched) {
        const { statusCode, body: errorBody } = errorResponse(
          new RouteNotFoundError(`No route ${method} ${url.pathname}. The README's HTTP API section lists the routes this listener serves.`),
        );
        send(response, statusCode, JSON.stringify(errorBody));
        return;
      }
      const routeKey = `${matched.route.method} ${matched.route.path}`;
      const event = toApiGatewayEvent(request, url, body, routeKey, matched.pathParameters, options.name);
      const handler = await matched.route.handler();
      const result = await handler(event, localContext(`vigil-${options.name}-${routeKey}`, options.name));
      send(response, result.statusCode ?? 200, result.body ?? '', (result.headers ?? {}) as Record<string, string>);
    } catch (error) {
      const { statusCode, body } = errorResponse(error);
      send(response, statusCode, JSON.stringify(body));
    }
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, server };
}
