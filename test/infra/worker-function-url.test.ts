import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';
import { logicalId, resourceOf, resourcesOfType, routeAuthorizations } from './support/template-queries.js';
import { poolAgentRoutes } from '../../functions/pools/routes.js';
import { jobWorkerRoutes } from '../../shared/local/job-worker-routes.js';

let withUrl: SynthesizedVigil;
let byDefault: SynthesizedVigil;

beforeAll(() => {
  withUrl = synthesizeVigil({ context: { workerFunctionUrl: 'true' } });
  byDefault = synthesizeVigil();
});

describe('context workerFunctionUrl: the worker and agent routes behind a Lambda function URL', () => {
  it('is off by default: no function URL, no WorkerUrl output, workers call the API Gateway routes', () => {
    for (const stack of [...byDefault.regional, byDefault.gate]) {
      const template = byDefault.template(stack);
      expect(Object.keys(resourcesOfType(template, 'AWS::Lambda::Url')), stack.stackName).toEqual([]);
      expect(Object.keys(template.findOutputs('WorkerUrl')), stack.stackName).toEqual([]);
    }
  });

  it('on: each region gets one URL without IAM auth on the worker function, and outputs it; the gate gets none', () => {
    for (const stack of withUrl.regional) {
      const template = withUrl.template(stack);
      const fn = stack.workerUrl?.fn;
      if (!fn) throw new Error(`${stack.stackName} has no worker URL function`);
      const urls = Object.values(resourcesOfType(template, 'AWS::Lambda::Url'));
      expect(urls.map((url) => url.Properties)).toEqual([{ AuthType: 'NONE', TargetFunctionArn: { 'Fn::GetAtt': [logicalId(fn.handler), 'Arn'] } }]);
      template.hasOutput('WorkerUrl', { Value: { 'Fn::GetAtt': [Match.stringLikeRegexp('^WorkerUrlApiHandlerFunctionUrl'), 'FunctionUrl'] } });
    }
    expect(Object.keys(resourcesOfType(withUrl.template(withUrl.gate), 'AWS::Lambda::Url'))).toEqual([]);
  });

  it('anyone may call the URL (workers hold no AWS credentials), but only through the URL, never InvokeFunction directly', () => {
    for (const stack of withUrl.regional) {
      const fn = stack.workerUrl?.fn;
      if (!fn) throw new Error(`${stack.stackName} has no worker URL function`);
      const permissions = Object.values(resourcesOfType(withUrl.template(stack), 'AWS::Lambda::Permission'))
        .map((permission) => permission.Properties ?? {})
        .filter((properties) => JSON.stringify(properties['FunctionName']).includes(logicalId(fn.handler)));
      const functionName = { 'Fn::GetAtt': [logicalId(fn.handler), 'Arn'] };
      expect(permissions).toEqual([
        { Action: 'lambda:InvokeFunctionUrl', FunctionName: functionName, Principal: '*', FunctionUrlAuthType: 'NONE' },
        { Action: 'lambda:InvokeFunction', FunctionName: functionName, Principal: '*', InvokedViaFunctionUrl: true },
      ]);
    }
  });

  it('a flood through the URL cannot take the concurrency the timer functions need: the worker function has its own cap, and its first throttle alarms', () => {
    const capped = synthesizeVigil({ context: { workerFunctionUrl: 'true', workerUrlConcurrency: '40' } });
    const uncapped = synthesizeVigil({ context: { workerFunctionUrl: 'true', workerUrlConcurrency: '0' } });
    for (const [vigil, cap] of [[withUrl, 100], [capped, 40], [uncapped, undefined]] as const) {
      for (const stack of vigil.regional) {
        const fn = stack.workerUrl?.fn;
        if (!fn) throw new Error(`${stack.stackName} has no worker URL function`);
        const template = vigil.template(stack);
        expect(resourceOf(template, fn.handler).Properties?.['ReservedConcurrentExecutions'], stack.stackName).toBe(cap);
        const throttleAlarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).filter(
          (alarm) => alarm.Properties?.['MetricName'] === 'Throttles' && JSON.stringify(alarm.Properties['Dimensions']).includes(logicalId(fn.handler)),
        );
        expect(throttleAlarms.length, stack.stackName).toBe(cap === undefined ? 0 : 1);
      }
    }
  });

  it('serves exactly the routes API Gateway serves on the worker token, no more (the two cannot drift apart)', () => {
    for (const stack of withUrl.regional) {
      const unsigned = Object.entries(routeAuthorizations(withUrl.template(stack)))
        .filter(([, authorization]) => authorization === 'NONE')
        .map(([routeKey]) => routeKey)
        .filter((routeKey) => !['GET /health', 'HEAD /health', 'GET /openapi.json', 'HEAD /openapi.json', '$default'].includes(routeKey));
      const servedByUrl = [...jobWorkerRoutes, ...poolAgentRoutes].map((route) => `${route.method} ${route.path}`);
      expect(servedByUrl.sort(), stack.stackName).toEqual(unsigned.sort());
    }
  });

  it('the worker function is watched like the others: its errors alarm the region', () => {
    for (const stack of withUrl.regional) {
      const fn = stack.workerUrl?.fn;
      if (!fn) throw new Error(`${stack.stackName} has no worker URL function`);
      const alarms = Object.values(resourcesOfType(withUrl.template(stack), 'AWS::CloudWatch::Alarm')).filter((alarm) =>
        JSON.stringify(alarm.Properties?.['Dimensions'] ?? alarm.Properties?.['Metrics'] ?? '').includes(logicalId(fn.handler)),
      );
      expect(alarms.length, stack.stackName).toBeGreaterThan(0);
    }
  });
});
