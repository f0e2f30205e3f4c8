import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { unmatchedResult } from './route-dispatch.js';
import { ROUTES_HINT, unmatchedRoute, type ServedRoute } from './unmatched-route.js';

/** The operations of an OpenAPI document's path item (its other keys are parameters, a summary, …). */
const OPERATIONS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** The routes an OpenAPI document describes: the checked-in one is kept equal to the API's route table. */
export function routesOfDocument(document: { paths: Record<string, object> }): ServedRoute[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((key) => OPERATIONS.has(key))
      .map((key) => ({ method: key.toUpperCase(), path })),
  );
}

/**
 * API Gateway's `$default` route: every request no route of the API takes (an unknown path, a method
 * a path does not serve, OPTIONS), answered in the contract's error shape as the local cloud answers
 * it, instead of API Gateway's own `{"message":"Not Found"}`.
 */
export const unroutedHandler =
  (routes: readonly ServedRoute[]) =>
  async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> =>
    unmatchedResult(unmatchedRoute(routes, event.requestContext.http.method, event.rawPath, ROUTES_HINT));
