import { RouteNotFoundError } from '../domain/errors.js';
import { errorResponse, type ErrorBody } from './error-response.js';

/** A route a listener or API serves: its method and API Gateway path template (`/jobs/{jobId}`). */
export interface ServedRoute {
  readonly method: string;
  readonly path: string;
}

/** Where a caller of a route that does not exist finds the ones that do (a local listener, a deployed API). */
export const ROUTES_HINT = 'GET /openapi.json lists the routes served here; docs/api.md describes them.';

/** The answer to a request no route takes; `body` absent for a 204. */
export interface UnmatchedAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body?: ErrorBody;
}

/** What of a path or method an answer repeats: a made-up path can be any length. */
const MAX_SHOWN_CHARS = 200;
const shown = (text: string): string => (text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text);

/** Whether a raw request path has the template's shape (a `{name}` takes any one segment, undecoded). */
function pathFits(template: string, rawPath: string): boolean {
  const parts = rawPath.split('/').filter(Boolean);
  const segments = template.split('/').filter(Boolean);
  return segments.length === parts.length && segments.every((segment, i) => (segment.startsWith('{') && segment.endsWith('}')) || segment === parts[i]);
}

/**
 * The methods a path answers, sorted: its routes' own, HEAD wherever GET is (a GET without its
 * body), and OPTIONS; none when no route has the path.
 */
export function methodsOfPath(routes: readonly ServedRoute[], rawPath: string): string[] {
  const methods = new Set(routes.filter((route) => pathFits(route.path, rawPath)).map((route) => route.method));
  if (methods.size === 0) return [];
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort();
}

const notFound = (message: string, headers: Record<string, string>): UnmatchedAnswer => {
  const answer = errorResponse(new RouteNotFoundError(message));
  return { statusCode: answer.statusCode, headers: { ...answer.headers, ...headers }, body: answer.body };
};

/**
 * What a request that no route takes is answered, the same by the local cloud, API Gateway's
 * `$default` route and the worker URL: OPTIONS on a served path is 204 with `Allow`; any other
 * method there is the contract's unknown route (404 `route_not_found`) with `Allow` and a message
 * naming the methods the path takes; a path no route has is 404 with `hint` (where the routes are listed).
 */
export function unmatchedRoute(routes: readonly ServedRoute[], method: string, rawPath: string, hint: string): UnmatchedAnswer {
  const methods = methodsOfPath(routes, rawPath);
  const request = `${shown(method)} ${shown(rawPath)}`;
  if (methods.length === 0) return notFound(`No route ${request}. ${hint}`, {});
  const allow = { Allow: methods.join(', ') };
  if (method === 'OPTIONS') return { statusCode: 204, headers: allow };
  return notFound(`No route ${request}: this path takes ${methods.join(', ')} only (the Allow header lists them). ${hint}`, allow);
}
