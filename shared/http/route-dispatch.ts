import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { RouteNotFoundError } from '../domain/errors.js';
import type { Route } from '../local/http-routes.js';
import { errorResponse } from './error-response.js';

/**
 * One Lambda for a family of routes (the pool API): API Gateway's `routeKey` picks the same
 * handler module the local cloud serves for that route, so each stays one use-case call.
 */
export const dispatchByRouteKey =
  (routes: readonly Route[]) =>
  async (event: APIGatewayProxyEventV2, context: Context): Promise<APIGatewayProxyStructuredResultV2> => {
    const route = routes.find((candidate) => `${candidate.method} ${candidate.path}` === event.routeKey);
    if (!route) {
      const { statusCode, body } = errorResponse(new RouteNotFoundError(`No route ${event.routeKey}. See the README for the pool API.`));
      return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
    }
    return (await route.handler())(event, context);
  };
