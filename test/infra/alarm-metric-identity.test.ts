import { beforeAll, describe, expect, it } from 'vitest';
import type { RegionalStack } from '../../infra/stacks/regional-stack.js';
import { environmentOf, resourcesOfType } from './support/template-queries.js';
import { functionsOf, synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';

// A metric is its namespace, name and whole set of dimensions, per account and region. The gate is
// deployed in a region that has a manager too (cdk.json: us-east-1), so an alarm of each stack on
// the same Vigil metric would be one alarm twice: each stack's would go off for the other's sweep,
// outbox or bus, and send its on-call to the wrong stack's logs.

let vigil: SynthesizedVigil;
let managerInGateRegion: RegionalStack;

beforeAll(() => {
  vigil = synthesizeVigil();
  const found = vigil.regional.find((stack) => stack.region === vigil.gate.region);
  if (!found) throw new Error('cdk.json deploys a manager in the gate region');
  managerInGateRegion = found;
});

/** `MetricName {dimensions}` of each alarm of a stack on Vigil's own (EMF) metrics. */
function vigilMetricsAlarmedIn(stack: SynthesizedVigil['gate'] | RegionalStack): string[] {
  return Object.values(resourcesOfType(vigil.template(stack), 'AWS::CloudWatch::Alarm'))
    .map((alarm) => alarm.Properties ?? {})
    .filter((p) => p['Namespace'] === 'Vigil')
    .map((p) => `${String(p['MetricName'])} ${JSON.stringify(p['Dimensions'])}`);
}

describe("the gate's alarms and its region's manager's read different metrics", () => {
  it('no Vigil metric is alarmed on by both stacks of the gate region', () => {
    const gate = vigilMetricsAlarmedIn(vigil.gate);
    const manager = vigilMetricsAlarmedIn(managerInGateRegion);
    expect(gate.length).toBeGreaterThan(0);
    expect(gate.filter((metric) => manager.includes(metric))).toEqual([]);
  });

  it("every alarm on a Vigil metric names the service its own stack's functions emit under", () => {
    for (const stack of [vigil.gate, managerInGateRegion]) {
      const template = vigil.template(stack);
      const services = new Set(Object.values(functionsOf(stack)).map((fn) => environmentOf(template, fn)['POWERTOOLS_SERVICE_NAME']));
      expect(services.size, stack.stackName).toBe(1);
      const alarmedServices = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'))
        .map((alarm) => alarm.Properties ?? {})
        .filter((p) => p['Namespace'] === 'Vigil' && Array.isArray(p['Dimensions']))
        .map((p) => (p['Dimensions'] as Array<{ Name: string; Value: unknown }>).find((d) => d.Name === 'service')?.Value);
      expect(new Set(alarmedServices), stack.stackName).toEqual(services);
    }
  });
});
