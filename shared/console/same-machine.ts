import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Why a request to the console server is refused, if it is: it forwards calls signed with the
 * operator's AWS credentials, so only its own page may make them. A Host other than the loopback
 * name it listens on is a DNS-rebound request from another site; an Origin other than its own is
 * another site's page (a cross-site POST needs no preflight when sent as text/plain).
 */
export function refusalOf(headers: IncomingHttpHeaders, port: number): string | undefined {
  const own = new Set([`127.0.0.1:${port}`, `localhost:${port}`]);
  if (!own.has(headers.host ?? '')) return `Host '${headers.host ?? ''}' is not this console's (${[...own].join(' or ')}); open the console at its own address.`;
  const origin = headers.origin;
  if (origin !== undefined && !own.has(origin.replace(/^http:\/\//, ''))) return `A page of ${origin} may not call this console; only its own page may.`;
  return undefined;
}

/** The header the console's page sends its key in (see `keyRefusalOf`). */
export const CONSOLE_KEY_HEADER = 'x-vigil-console-key';

/** The page and its script: the same for everyone, no Vigil data in them, so they need no key. */
const KEYLESS = new Set(['/', '/console', '/console/', '/console/app.js']);

/**
 * Why a request to `vigil console` is refused for want of its key, if it is. Every user of this
 * machine reaches 127.0.0.1 and may send any Host and no Origin: only whoever holds the key the
 * console printed (in the address it names) may read Vigil or act through it with the operator's
 * credentials. A custom header, not a cookie: a cookie of 127.0.0.1 goes to every port of it.
 */
export function keyRefusalOf(method: string, path: string, headers: IncomingHttpHeaders, key: string): string | undefined {
  if ((method === 'GET' || method === 'HEAD') && KEYLESS.has(path)) return undefined;
  const given = Buffer.from(String(headers[CONSOLE_KEY_HEADER] ?? ''));
  const wanted = Buffer.from(key);
  if (given.length === wanted.length && timingSafeEqual(given, wanted)) return undefined;
  return 'This call needs the console\'s key: open the address `vigil console` printed (…/?key=…) in this browser.';
}
