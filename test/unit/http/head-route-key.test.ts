import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { dispatchByRouteKey } from '../../../shared/http/route-dispatch.js';
import type { HttpLambda, Route } from '../../../shared/local/http-routes.js';
import { localContext } from '../../../shared/local/lambda-context.js';

const answering = (what: string): (() => Promise<HttpLambda>) => async () => async () => ({ statusCode: 200, body: JSON.stringify({ what }) });

const routes: Route[] = [
  { method: 'GET', path: '/pools/{poolId}', doc: { summary: 'read', auth: 'iam', answers: {} }, handler: answering('read') },
  { method: 'POST', path: '/pools/{poolId}/cancel', doc: { summary: 'cancel', auth: 'iam', answers: {} }, handler: answering('cancel') },
];

const withRouteKey = (routeKey: string) => ({ routeKey, rawPath: '/pools/p-1', requestContext: { http: { method: routeKey.split(' ')[0] } } }) as unknown as APIGatewayProxyEventV2;

/**
 * Deployed, a HEAD route mirrors each GET route (infra/constructs/vigil-http-api.ts) and hands the
 * function its own route key, `HEAD /path`. A function serving a family of routes by route key (the
 * pool client API) answered it 404, as no route of its table is HEAD.
 */
describe('a family of routes dispatched by route key', () => {
  it('HEAD /path reaches the GET route of that path', async () => {
    // Act
    const answer = await dispatchByRouteKey(routes)(withRouteKey('HEAD /pools/{poolId}'), localContext('pools', 'us-east-1'));
    // Assess
    expect([answer.statusCode, answer.body]).toEqual([200, JSON.stringify({ what: 'read' })]);
  });

  it('HEAD of a POST route is still no route', async () => {
    // Act
    const answer = await dispatchByRouteKey(routes)(withRouteKey('HEAD /pools/{poolId}/cancel'), localContext('pools', 'us-east-1'));
    // Assess
    expect(answer.statusCode).toBe(404);
  });
});
