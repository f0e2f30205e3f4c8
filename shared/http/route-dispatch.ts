import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { RouteNotFoundError } from '../domain/errors.js';
import { matchRoute, type Route } from '../local/http-routes.js';
import { errorResponse } from './error-response.js';
import { unmatchedRoute, type UnmatchedAnswer } from './unmatched-route.js';

type RouteAnswer = Promise<APIGatewayProxyStructuredResultV2>;

const answerError = (error: unknown): APIGatewayProxyStructuredResultV2 => {
  const { statusCode, body, headers } = errorResponse(error);
  return { statusCode, headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) };
};

/** An unmatched route's answer as a Lambda proxy result (API Gateway's `$default` route, the worker URL). */
export const unmatchedResult = (answer: UnmatchedAnswer): APIGatewayProxyStructuredResultV2 =>
  answer.body === undefined
    ? { statusCode: answer.statusCode, headers: answer.headers }
    : { statusCode: answer.statusCode, headers: { 'content-type': 'application/json', ...answer.headers }, body: JSON.stringify(answer.body) };

/** The route a route key names; `HEAD /path` names the GET route its HEAD route mirrors (infra/constructs/vigil-http-api.ts). */
const routeOfKey = (routes: readonly Route[], routeKey: string): Route | undefined =>
  routes.find((route) => `${route.method} ${route.path}` === routeKey || (route.method === 'GET' && `HEAD ${route.path}` === routeKey));

/**
 * One Lambda for a family of routes (the pool API): API Gateway's `routeKey` picks the same
 * handler module the local cloud serves for that route, so each stays one use-case call.
 */
export const dispatchByRouteKey =
  (routes: readonly Route[]) =>
  async (event: APIGatewayProxyEventV2, context: Context): RouteAnswer => {
    const route = routeOfKey(routes, event.routeKey);
    if (!route) return answerError(new RouteNotFoundError(`No route ${event.routeKey}. See the README for the pool API.`));
    return (await route.handler())(event, context);
  };

/**
 * One Lambda behind a function URL, which routes nothing itself: every request arrives with the
 * `$default` route key and no path parameters. The path picks the route, and the handler gets the
 * event API Gateway would have built for it, so the same handler modules serve both.
 */
export const dispatchByPath =
  (routes: readonly Route[], describeRoutes: string) =>
  async (event: APIGatewayProxyEventV2, context: Context): RouteAnswer => {
    const method = event.requestContext.http.method;
    let matched: ReturnType<typeof matchRoute>;
    try {
      matched = matchRoute(routes, method, event.rawPath);
    } catch (error) {
      return answerError(error);
    }
    if (!matched) return unmatchedResult(unmatchedRoute(routes, method, event.rawPath, describeRoutes));
    const routeKey = `${method === 'HEAD' ? 'HEAD' : matched.route.method} ${matched.route.path}`;
    const routed: APIGatewayProxyEventV2 = {
      ...event,
      routeKey,
      pathParameters: matched.pathParameters,
      requestContext: { ...event.requestContext, routeKey },
    };
    return (await matched.route.handler())(routed, context);
  };
