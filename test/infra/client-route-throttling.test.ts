/**
 * A review finding (hardening): the IAM-authorized client routes had no throttle. Every signed route
 * (POST /jobs with up to 10,000 workflows, POST /pools, claims, cancels, the gate's fan-out) was bounded
 * only by the account-wide API Gateway quota, and none of their functions has reserved concurrency: a
 * runaway signed client could take the region's Lambda concurrency from FireJobTimer and the sweeps.
 * The stage now has a default throttle (infra/config/route-throttles.ts); the unsigned routes' own
 * settings override it.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { resourceOf } from './support/template-queries.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';

let vigil: SynthesizedVigil;
beforeAll(() => {
  vigil = synthesizeVigil();
});

describe('throttling of the IAM-authorized (client) routes', () => {
  it('every stack’s $default stage has a default rate and burst limit, so signed routes are bounded too', () => {
    const unbounded: Record<string, unknown> = {};
    for (const stack of [...vigil.regional, vigil.gate]) {
      const stage = resourceOf(vigil.template(stack), stack.api.stage);
      const defaults = stage.Properties?.['DefaultRouteSettings'] as { ThrottlingRateLimit?: unknown; ThrottlingBurstLimit?: unknown } | undefined;
      const rate = Number(defaults?.ThrottlingRateLimit);
      const burst = Number(defaults?.ThrottlingBurstLimit);
      if (!(rate > 0 && burst > 0)) unbounded[stack.stackName] = defaults ?? 'no DefaultRouteSettings';
    }
    expect(unbounded, 'stages whose client routes have no throttle').toEqual({});
  });
});
