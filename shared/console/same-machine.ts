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
