import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { rawReplyHeaders, type RawReply } from '../console/console-routes.js';
import { errorResponse } from '../http/error-response.js';
import { readRequestBody } from '../http/read-request-body.js';
import { ROUTES_HINT, unmatchedRoute } from '../http/unmatched-route.js';
import { apiGatewayBody } from './api-gateway-body.js';
import { fitsLambdaRequest, payloadTooLarge } from './lambda-request-limit.js';
import { localContext } from './lambda-context.js';
import { matchRoute, type Route } from './http-routes.js';
import { buildOnce } from '../wiring/build-once.js';
import { refusalOf } from '../console/same-machine.js';
import { NOT_FRAMEABLE } from '../console/frame-guard.js';

const MAX_HEADER_BYTES = 64 * 1024;

export interface ListenerOptions {
  /** The region (or `gate`) this listener serves; handed to handlers as a stage variable. */
  name: string;
  port: number;
  routes: readonly Route[];
  /** Extra local-only routes (fault injection, metrics) answered before the API routes. */
  extra?: (method: string, path: string, body: string) => Promise<{ statusCode: number; body: unknown; headers?: Record<string, string> } | undefined>;
  /** Routes answered first with their own content type (the operator console on the gate listener). */
  raw?: (method: string, url: URL, body: string, contentType?: string) => Promise<RawReply | undefined>;
  /** The local cloud's clock (virtual or not): every answer's `Date` header reads it, as API Gateway's reads AWS's. */
  now?: () => number;
}

function send(response: ServerResponse, statusCode: number, body: string, headers: Record<string, string> = {}) {
  response.writeHead(statusCode, { 'content-type': 'application/json', ...NOT_FRAMEABLE, ...headers });
  response.end(body);
}

/**
 * As API Gateway's payload 2.0 gives them: a parameter sent more than once is one value, joined by
 * commas, so the route's schema judges every value rather than only the last.
 */
function queryStringParameters(params: URLSearchParams): Record<string, string> {
  const joined = new Map<string, string>();
  for (const [name, value] of params) {
    const earlier = joined.get(name);
    joined.set(name, earlier === undefined ? value : `${earlier},${value}`);
  }
  return Object.fromEntries(joined);
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
    headers,
    ...(url.searchParams.size > 0 ? { queryStringParameters: queryStringParameters(url.searchParams) } : {}),
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
    ...apiGatewayBody(body, headers['content-type']),
  };
}

const loadedHandlers = new WeakMap<Route, Route['handler']>();

/** The route's handler, loaded on its first request (a cold start) and kept (see lambda-module.ts). */
function handlerOf(route: Route) {
  let load = loadedHandlers.get(route);
  if (!load) loadedHandlers.set(route, (load = buildOnce(route.handler)));
  return load();
}

/** Loads every route's handler module now, as the first request to each would (see `loadHandlerModules`). */
export const loadRouteHandlers = (routes: readonly Route[]): Promise<unknown> => Promise.all(routes.map(handlerOf));

/** One HTTP listener that turns requests into API Gateway v2 events for the route's handler. */
export async function startHttpListener(options: ListenerOptions): Promise<{ url: string; server: Server }> {
  // Node's default 16 KiB header limit answered an overlong query with a bare 431 (Schemathesis):
  // let it through to the schemas, which answer 400 naming the parameter.
  const now = options.now ?? Date.now;
  const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, async (request, response) => {
    // Node's own `Date` is the system clock's: a client judging Vigil's deadlines by it would be off
    // by however far a virtual clock stands from it (see shared/sdk/vigil-clock.ts).
    response.setHeader('date', new Date(now()).toUTCString());
    try {
      // Loopback only, with no credentials of its own: another site's page (or one DNS-rebound to
      // this address) could otherwise drive the local cloud, its faults and its clock.
      const refusal = refusalOf(request.headers, (server.address() as AddressInfo).port);
      if (refusal !== undefined) {
        send(response, 403, JSON.stringify({ error: { code: 'forbidden', message: refusal } }));
        return;
      }
      const url = new URL(request.url ?? '/', 'http://localhost');
      const method = request.method ?? 'GET';
      let body: string;
      try {
        body = await readRequestBody(request);
      } catch {
        send(response, 413, JSON.stringify(payloadTooLarge));
        return;
      }
      // HEAD is a GET without its body: Node drops the body of an answer to HEAD.
      const getOrMethod = method === 'HEAD' ? 'GET' : method;
      const raw = await options.raw?.(getOrMethod, url, body, request.headers['content-type']);
      if (raw) {
        send(response, raw.statusCode, raw.body, rawReplyHeaders(raw));
        return;
      }
      const extra = await options.extra?.(getOrMethod, url.pathname, body);
      if (extra) {
        send(response, extra.statusCode, JSON.stringify(extra.body), extra.headers);
        return;
      }
      const matched = matchRoute(options.routes, method, url.pathname);
      if (!matched) {
        // As API Gateway's `$default` route answers it (functions/api/unrouted.ts).
        const answer = unmatchedRoute(options.routes, method, url.pathname, ROUTES_HINT);
        send(response, answer.statusCode, answer.body === undefined ? '' : JSON.stringify(answer.body), answer.headers);
        return;
      }
      // API Gateway's route key of a HEAD request is its own HEAD route's, which mirrors the GET route.
      const routeKey = `${method === 'HEAD' ? 'HEAD' : matched.route.method} ${matched.route.path}`;
      const event = toApiGatewayEvent(request, url, body, routeKey, matched.pathParameters, options.name);
      if (!fitsLambdaRequest(event)) {
        send(response, 413, JSON.stringify(payloadTooLarge));
        return;
      }
      const handler = await handlerOf(matched.route);
      const result = await handler(event, localContext(`vigil-${options.name}-${routeKey}`, options.name));
      send(response, result.statusCode ?? 200, result.body ?? '', (result.headers ?? {}) as Record<string, string>);
    } catch (error) {
      const { statusCode, body, headers } = errorResponse(error);
      send(response, statusCode, JSON.stringify(body), headers);
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
