import { AnswerTooLargeError, boundedText } from './answer-too-large-error.js';
import { CallNotSignedError } from './call-not-signed-error.js';
import { consoleAssets } from './console-assets.js';
import { FORWARD_TIMEOUT_MS, forwardWithin, isTimeout } from './forward-within.js';
import { withGatewayAnswerExplained } from './gateway-reply.js';

/** An answer the listener sends as-is. */
export interface RawReply {
  statusCode: number;
  contentType: string;
  body: string;
  /** The upstream's `Retry-After`, handed on so a caller backs off as long as Vigil asked. */
  retryAfter?: string;
  /** The console's own headers for its page (its policy); a forwarded answer has none. */
  headers?: Readonly<Record<string, string>>;
}

export interface ForwardedRequest {
  method: string;
  url: URL;
  body: string;
  contentType?: string;
  /** Aborts once the console stops waiting for the answer (see forward-within.ts). */
  signal?: AbortSignal;
}

/** Sends a request on to a Vigil listener (plain for the local cloud, signed for a deployed one). */
export type Forwarder = (request: ForwardedRequest) => Promise<RawReply>;

export interface ConsoleTargets {
  /** The gate's base URL, when there is one. */
  gate?: string;
  regions: Record<string, string>;
}

export interface ConsoleRouteOptions {
  targets: () => ConsoleTargets;
  forward: Forwarder;
  /** Whether `/_local/faults` answers here (the local cloud's gate listener). */
  faults: boolean;
  /** How long a listener has to answer; FORWARD_TIMEOUT_MS unless a test says otherwise. */
  forwardTimeoutMs?: number;
}

const json = (statusCode: number, body: unknown): RawReply => ({ statusCode, contentType: 'application/json', body: JSON.stringify(body) });

/** A plain HTTP forwarder (the local cloud: same machine, no credentials). */
export const plainForwarder: Forwarder = async ({ method, url, body, contentType, signal }) => {
  const response = await fetch(url, {
    method,
    redirect: 'manual',
    ...(signal ? { signal } : {}),
    ...(method !== 'GET' && method !== 'HEAD' ? { body } : {}),
    ...(contentType ? { headers: { 'content-type': contentType } } : {}),
  });
  return replyOf(response);
};

/** What a forwarder hands back of an upstream answer: status, type, body and `Retry-After`. */
export async function replyOf(response: Response): Promise<RawReply> {
  const retryAfter = response.headers.get('retry-after');
  return {
    statusCode: response.status,
    contentType: response.headers.get('content-type') ?? 'application/json',
    body: await boundedText(response),
    ...(retryAfter !== null ? { retryAfter } : {}),
  };
}

/** The headers a listener sends with a raw reply. */
export const rawReplyHeaders = (reply: RawReply): Record<string, string> => ({
  ...reply.headers,
  'content-type': reply.contentType,
  ...(reply.retryAfter !== undefined ? { 'retry-after': reply.retryAfter } : {}),
});

/**
 * The operator console's routes: the page (`GET /`), its script, which listeners exist, and
 * `/console/api/<gate|region>/<route>` forwarded to that listener, so the page talks to one origin.
 */
export function consoleRoutes(options: ConsoleRouteOptions) {
  return async (method: string, url: URL, body: string, contentType?: string): Promise<RawReply | undefined> => {
    const path = url.pathname;
    if (method === 'GET' && (path === '/' || path === '/console' || path === '/console/')) {
      const { html, htmlHeaders } = await consoleAssets();
      return { statusCode: 200, contentType: 'text/html; charset=utf-8', body: html, headers: htmlHeaders };
    }
    if (method === 'GET' && path === '/console/app.js') {
      return { statusCode: 200, contentType: 'text/javascript; charset=utf-8', body: (await consoleAssets()).js };
    }
    if (method === 'GET' && path === '/console/endpoints') {
      const targets = options.targets();
      return json(200, { gate: targets.gate !== undefined, regions: Object.keys(targets.regions), faults: options.faults });
    }
    const match = /^\/console\/api\/([^/]+)(\/.*)$/.exec(path);
    if (!match) return undefined;
    const [, rawTarget = '', rest = '/'] = match;
    const target = decodedOrSelf(rawTarget);
    const targets = options.targets();
    const base = target === 'gate' ? targets.gate : Object.hasOwn(targets.regions, target) ? targets.regions[target] : undefined;
    if (base === undefined) {
      const known = [...(targets.gate ? ['gate'] : []), ...Object.keys(targets.regions)].join(', ');
      return json(404, { error: { code: 'unknown_target', message: `No listener '${target}' behind this console; it knows ${known}.` } });
    }
    // Vigil's own routes only: the console on the gate's listener would otherwise forward a
    // `/console/api/gate/console/api/gate/…` path to itself, once per repeat, body and all.
    if (/^\/+(console|_local)(\/|$)/i.test(decodedOrSelf(rest))) {
      return json(404, { error: { code: 'route_not_found', message: `The console forwards Vigil's API routes only, not ${rest}.` } });
    }
    const upstream = new URL(base.replace(/\/$/, '') + rest + url.search);
    const timeoutMs = options.forwardTimeoutMs ?? FORWARD_TIMEOUT_MS;
    try {
      const reply = await forwardWithin(options.forward, { method, url: upstream, body, ...(contentType ? { contentType } : {}) }, timeoutMs);
      return withGatewayAnswerExplained(reply, `${method} ${rest} on ${target}`);
    } catch (error) {
      if (error instanceof CallNotSignedError) {
        const message = `The call to ${target} was not sent: the console could not sign it with your AWS credentials (${error.message}). Make them available where vigil console runs (AWS_PROFILE, aws sso login, …) and try again.`;
        return json(502, { error: { code: error.code, message } });
      }
      if (error instanceof AnswerTooLargeError) {
        return json(502, { error: { code: error.code, message: `${target} answered more than a Vigil does (${error.message}); the console dropped it. Check that the endpoint is Vigil's.` } });
      }
      if (isTimeout(error)) {
        return json(504, { error: { code: 'upstream_timeout', message: `${target} did not answer within ${timeoutMs / 1000} s; the console stopped waiting.` } });
      }
      return json(502, { error: { code: 'upstream_unavailable', message: `${target} did not answer (${String(error)}). Check that it runs and the endpoint is right.` } });
    }
  };
}

/** The path as a server would route it; as sent when it is not valid percent-encoding (it then matches nothing). */
function decodedOrSelf(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
