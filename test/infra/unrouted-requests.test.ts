import { beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { gateRoutes } from '../../shared/local/local-gate.js';
import { managerRoutes } from '../../shared/local/manager-routes.js';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourceOf, resourcesOfType } from './support/template-queries.js';

// API Gateway's HTTP APIs have no gateway responses (AWS::ApiGatewayV2 has no GatewayResponse, unlike a
// REST API): what it answers itself (an unknown route, a refused signature, a throttle) is its own
// `{"message":"…"}`. The one such answer an HTTP API lets Vigil give instead is the unknown route's: a
// `$default` route takes every request no other route takes.

let vigil: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil();
});

interface RouteResource {
  routeKey: string;
  authorization: unknown;
  /** The Lambda the route's integration invokes: its integration URI, flattened. */
  target: string;
}

function routesOf(template: Template): RouteResource[] {
  const integrations = resourcesOfType(template, 'AWS::ApiGatewayV2::Integration');
  return Object.values(resourcesOfType(template, 'AWS::ApiGatewayV2::Route')).map((route) => {
    const target = JSON.stringify(route.Properties?.['Target']);
    const integrationId = Object.keys(integrations).find((id) => target.includes(id));
    return {
      routeKey: String(route.Properties?.['RouteKey']),
      authorization: route.Properties?.['AuthorizationType'],
      target: JSON.stringify(integrationId ? integrations[integrationId]?.Properties?.['IntegrationUri'] : undefined),
    };
  });
}

const apis = () => [
  ...vigil.regional.map((stack) => ({ stack, unrouted: stack.functions.Unrouted as VigilFunction, table: managerRoutes })),
  { stack: vigil.gate, unrouted: vigil.gate.functions.Unrouted as VigilFunction, table: gateRoutes },
];

/**
 * Scenario: a request no route of a deployed API takes (a typo'd path, `DELETE /jobs`, `OPTIONS`, a
 * monitor's `HEAD /health`). API Gateway answered it itself: 404 `{"message":"Not Found"}`, not the
 * contract's `{"error":{"code","message"}}`, while `npm start` answered in the contract's shape.
 *
 * Correct behaviour: every API has a `$default` route whose function answers as the local cloud
 * does, and a HEAD route beside every GET route, authorized as the GET route is.
 */
describe("requests no route takes, on every API Vigil deploys", () => {
  it('every API (each region, the gate) sends them to its own Unrouted function, without IAM (it reads no data), throttled', () => {
    for (const { stack, unrouted } of apis()) {
      const template = vigil.template(stack);
      const fallback = routesOf(template).find((route) => route.routeKey === '$default');
      expect(fallback, stack.stackName).toEqual({ routeKey: '$default', authorization: 'NONE', target: expect.stringContaining(logicalId(unrouted.handler)) });
      const settings = resourceOf(template, stack.api.stage).Properties?.['RouteSettings'] as Record<string, unknown>;
      expect(settings['$default'], stack.stackName).toEqual({ ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 });
    }
  });

  it("the Unrouted function answers from its own API's document: the region's and the gate's", () => {
    const entries = apis().map(({ stack, unrouted }) => [stack === vigil.gate ? 'gate' : 'region', unrouted.handler.node.path, unrouted.entry] as const);
    for (const [which, path, entry] of entries) expect(entry, path).toBe(which === 'gate' ? 'functions/gate-api/unrouted.ts' : 'functions/api/unrouted.ts');
  });

  it('every GET route has a HEAD route to the same function with the same authorization, and the routes are exactly the local route table', () => {
    for (const { stack, table } of apis()) {
      const routes = routesOf(vigil.template(stack));
      const byKey = new Map(routes.map((route) => [route.routeKey, route]));
      const gets = routes.filter((route) => route.routeKey.startsWith('GET '));
      expect(gets.length, stack.stackName).toBeGreaterThan(3);
      for (const get of gets) {
        const head = byKey.get(get.routeKey.replace(/^GET /, 'HEAD '));
        expect(head, `${stack.stackName} ${get.routeKey}`).toEqual({ ...get, routeKey: get.routeKey.replace(/^GET /, 'HEAD ') });
      }
      const local = table.flatMap((route) => [`${route.method} ${route.path}`, ...(route.method === 'GET' ? [`HEAD ${route.path}`] : [])]);
      expect([...byKey.keys()].sort(), stack.stackName).toEqual([...local, '$default'].sort());
    }
  });
});
