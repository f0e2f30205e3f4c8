import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { policyFromEnv } from '../../shared/config/policy-from-env.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { environmentOf } from './support/template-queries.js';


/** A Lambda's variables as the function would see them: CloudFormation references become placeholder strings. */
function asProcessEnv(variables: Record<string, unknown>): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, typeof value === 'string' ? value : `resolved-${key}`]));
}

describe('gate policy follows the deployed report interval', () => {
  // README ("What it costs") recommends -c gateReportIntervalSeconds=60 to cut the gate overhead.
  const REPORT_INTERVAL_SECONDS = 60;
  let vigil: SynthesizedVigil;
  const saved = { ...process.env };

  beforeAll(() => {
    vigil = synthesizeVigil({ context: { gateReportIntervalSeconds: REPORT_INTERVAL_SECONDS } });
  });
  afterAll(() => {
    process.env = saved;
  });

  it('with gateReportIntervalSeconds=60 the deployed gate waits at least one report interval past the global deadline for extension reports', async () => {
    const [region] = vigil.regional;
    if (!region) throw new Error('no regional stack');
    // The managers are deployed with the configured interval…
    const managerEnv = asProcessEnv(environmentOf(vigil.template(region), region.functions.FireJobTimer));
    expect(policyFromEnv(managerEnv).gateReportIntervalSeconds).toBe(REPORT_INTERVAL_SECONDS);

    // …and the gate is built exactly as its Lambda builds it, from the variables the gate stack sets.
    const gateEnv = asProcessEnv(environmentOf(vigil.template(vigil.gate), vigil.gate.functions.FireGateTimer));
    process.env = { ...saved, ...gateEnv, AWS_REGION: vigil.gate.region };
    const { lambdaGate } = await import('../../shared/wiring/lambda-gate.js');
    const gate = await lambdaGate();

    // An extension's immediate report is `resent` (no outbox): when it is lost, the next periodic report
    // carries it, up to one interval later. The gate's condition-1 grace is meant to cover that
    // (gate-policy.ts: "one periodic report interval (10 s) plus delivery slack"), but it stays 15 s:
    // the gate declares a global timeout over an extension a region granted.
    expect(gate.policy.extensionReportGraceSeconds).toBeGreaterThanOrEqual(REPORT_INTERVAL_SECONDS);
  });
});
