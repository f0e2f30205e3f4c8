import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { ASYNC_EVENT_RETRY, SQS_RETRY } from '../../shared/simulation/world/delivery.js';
import type { VigilFunction } from '../../infra/constructs/vigil-function.js';
import { synthesizeVigil, type SynthesizedVigil } from '../infra/support/vigil-app.js';
import { logicalId, resourceOf, resourcesOfType } from '../infra/support/template-queries.js';

// Infra review findings: each test failed on the app as it was (a first deploy racing its stage against
// its routes; retries deployed unlike the ones the simulator replays).

let vigil: SynthesizedVigil;

beforeAll(() => {
  vigil = synthesizeVigil();
});

const allStacks = () => [...vigil.regional, vigil.gate];

/** DependsOn of a resource as a list of logical ids. */
function dependsOn(template: Template, id: string): string[] {
  const resource = (template.toJSON()['Resources'] as Record<string, { DependsOn?: string | string[] }>)[id];
  const raw = resource?.DependsOn;
  return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
}

describe('HTTP API stage: route settings vs. route creation order', () => {
  // API Gateway refuses a stage whose RouteSettings name a route key that does not exist yet
  // ("Unable to find Route by key … within the provided RouteSettings"). The $default stage carries
  // per-route throttles for the unsigned routes; without an order CloudFormation creates the stage
  // and the routes side by side, and a first deployment could fail.
  it.each(['Vigil-us-east-1', 'Vigil-eu-west-1', 'Vigil-ap-southeast-2', 'Vigil-gate'])(
    '%s: the $default stage depends on every route its RouteSettings name',
    (stackName) => {
      const stack = allStacks().find((s) => s.stackName === stackName);
      if (!stack) throw new Error(`no stack ${stackName}`);
      const template = vigil.template(stack);
      const stage = resourceOf(template, stack.api.stage);
      const throttledKeys = Object.keys((stage.Properties?.['RouteSettings'] as Record<string, unknown> | undefined) ?? {});
      expect(throttledKeys.length).toBeGreaterThan(0);
      const routeIdByKey = new Map(
        Object.entries(resourcesOfType(template, 'AWS::ApiGatewayV2::Route')).map(([id, route]) => [route.Properties?.['RouteKey'] as string, id]),
      );
      const stageDependsOn = dependsOn(template, logicalId(stack.api.stage));
      const notOrdered = throttledKeys.filter((key) => !stageDependsOn.includes(routeIdByKey.get(key) ?? `<no route ${key}>`));
      expect(notOrdered).toEqual([]);
    },
  );
});

describe('event retries: deployed settings vs. the retry model the simulator validates', () => {
  // The simulator modelled Lambda's async invocation as 6 attempts; AWS allows 3 (retryAttempts ≤ 2),
  // so its no-loss runs held for retries the deployment does not make.
  it('on-manager-report and on-gate-decision get at least the async attempts the simulator assumes', () => {
    const consumers: [string, Template, VigilFunction][] = [
      ['Vigil-gate/OnManagerReport', vigil.template(vigil.gate), vigil.gate.functions.OnManagerReport],
      ...vigil.regional.map((stack): [string, Template, VigilFunction] => [`${stack.stackName}/OnGateDecision`, vigil.template(stack), stack.functions.OnGateDecision]),
    ];
    const deployedAttempts: Record<string, number> = {};
    for (const [name, template, fn] of consumers) {
      const config = Object.values(resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig')).find(
        (c) => JSON.stringify(c.Properties?.['FunctionName']) === JSON.stringify({ Ref: logicalId(fn.handler) }),
      );
      deployedAttempts[name] = 1 + Number(config?.Properties?.['MaximumRetryAttempts'] ?? 2);
    }
    const short = Object.entries(deployedAttempts).filter(([, attempts]) => attempts < ASYNC_EVENT_RETRY.maxAttempts);
    expect(Object.fromEntries(short), `simulated attempts: ${ASYNC_EVENT_RETRY.maxAttempts}`).toEqual({});
  });

  // The simulator brought a failed wake-up back after 30 s; the deployed queues do after their
  // visibility timeout, 180 s (six times the consumer's 30 s).
  it('the timer queues redeliver a failed wake-up after the delay the simulator assumes', () => {
    const deployed = allStacks().map((stack) => {
      const queue = resourceOf(vigil.template(stack), stack.timers.queue).Properties ?? {};
      return {
        stack: stack.stackName,
        redeliveryMs: Number(queue['VisibilityTimeout']) * 1_000,
        attempts: (queue['RedrivePolicy'] as { maxReceiveCount: number }).maxReceiveCount,
      };
    });
    expect(deployed).toEqual(
      allStacks().map((stack) => ({ stack: stack.stackName, redeliveryMs: SQS_RETRY.delayMs(1), attempts: SQS_RETRY.maxAttempts })),
    );
  });
});
