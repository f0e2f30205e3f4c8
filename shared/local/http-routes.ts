import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { InvalidRequestError } from '../domain/errors.js';
import type { DocumentedRoute } from '../contract/route-doc.js';

export type HttpLambda = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** A served route: its method, API Gateway path syntax (`/jobs/{jobId}`), OpenAPI doc and handler. */
export interface Route extends DocumentedRoute {
  handler: () => Promise<HttpLambda>;
}

export interface MatchedRoute {
  route: Route;
  pathParameters: Record<string, string>;
}

function decodePathSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new InvalidRequestError(
      `The path segment '${segment.slice(0, 200)}' is not valid percent-encoding. Encode ids with encodeURIComponent (each '%' followed by two hex digits of UTF-8).`,
    );
  }
}

/** HEAD is a GET without its body (RFC 9110): the GET route answers it, and HTTP drops the body. */
const servedBy = (route: Route, method: string): boolean => route.method === method || (method === 'HEAD' && route.method === 'GET');

/** Matches a request path against API Gateway-style route templates. */
export function matchRoute(routes: readonly Route[], method: string, path: string): MatchedRoute | undefined {
  const parts = path.split('/').filter(Boolean);
  for (const route of routes) {
    if (!servedBy(route, method)) continue;
    const template = route.path.split('/').filter(Boolean);
    if (template.length !== parts.length) continue;
    const pathParameters: Record<string, string> = {};
    const matches = template.every((segment, i) => {
      const part = parts[i] as string;
      if (segment.startsWith('{') && segment.endsWith('}')) {
        pathParameters[segment.slice(1, -1)] = decodePathSegment(part);
        return true;
      }
      return segment === part;
    });
    if (matches) return { route, pathParameters };
  }
  return undefined;
}
