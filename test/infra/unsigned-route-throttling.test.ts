import { poolAgentRoutes } from '../../functions/pools/routes.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { resourceOf, routeAuthorizations } from './support/template-queries.js';

// The token-authenticated worker routes (and the public health probe) carry no IAM
// authorization, so a leaked token or a runaway worker loop is bounded by route throttling.

let vigil: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil();
});

const routeSettingsOf = (which: 'regional' | 'gate') => {
  const stack = which === 'gate' ? vigil.gate : vigil.regional[0];
  if (!stack) throw new Error('no regional stack');
  const template = vigil.template(stack);
  return { settings: resourceOf(template, stack.api.stage).Properties?.['RouteSettings'] as Record<string, unknown> | undefined, template };
};

describe('throttling of the routes without IAM authorization', () => {
  it('every worker route of a region and its health probe have their own rate and burst limit', () => {
    // Act
    const { settings } = routeSettingsOf('regional');
    // Assess
    expect(settings).toEqual({
      'POST /jobs/{jobId}/workflows/{workflowId}/progress': { ThrottlingRateLimit: 1_000, ThrottlingBurstLimit: 2_000 },
      'POST /jobs/{jobId}/workflows/{workflowId}/complete': { ThrottlingRateLimit: 500, ThrottlingBurstLimit: 1_000 },
      'POST /workers/{workerId}/extensions': { ThrottlingRateLimit: 100, ThrottlingBurstLimit: 200 },
      'GET /health': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      'HEAD /health': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      'GET /openapi.json': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      'HEAD /openapi.json': { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      $default: { ThrottlingRateLimit: 10, ThrottlingBurstLimit: 20 },
      ...Object.fromEntries(
        poolAgentRoutes.map((route) => [`${route.method} ${route.path}`, { ThrottlingRateLimit: 1_000, ThrottlingBurstLimit: 2_000 }]),
      ),
    });
  });

  it('exactly the routes without IAM authorization are throttled per route, in both stacks', () => {
    for (const which of ['regional', 'gate'] as const) {
      // Act
      const { settings, template } = routeSettingsOf(which);
      // Assess
      const unsigned = Object.entries(routeAuthorizations(template))
        .filter(([, authorization]) => authorization !== 'AWS_IAM')
        .map(([routeKey]) => routeKey);
      expect(Object.keys(settings ?? {}).sort(), which).toEqual(unsigned.sort());
    }
  });
});
