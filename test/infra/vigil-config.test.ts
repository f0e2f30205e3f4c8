import { App } from 'aws-cdk-lib';
import { describe, expect, it } from 'vitest';
import { readVigilConfig, VigilConfigError } from '../../infra/config/vigil-config.js';
import { cdkJsonContext } from './support/vigil-app.js';

const configFrom = (context: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) =>
  readVigilConfig(new App({ context: { ...cdkJsonContext(), ...context } }).node, env);

describe('CDK context', () => {
  it('cdk.json deploys three regions with the gate in us-east-1, deletion protection on, and the policy defaults', () => {
    // Act
    const config = configFrom({});
    // Assess
    expect(config).toEqual({
      regions: ['us-east-1', 'eu-west-1', 'ap-southeast-2'],
      gateRegion: 'us-east-1',
      account: undefined,
      deletionProtection: true,
      alarmEmail: undefined,
      tracing: false,
      systemLogLevel: 'WARN',
      workerFunctionUrl: false,
      workerUrlConcurrency: 100,
      timerConsumerConcurrency: 10,
      sweepConcurrency: 1,
      policy: { defaultStuckThresholdSeconds: 120, gateFallbackSeconds: 300, gateReportIntervalSeconds: 10, gateStuckThresholdSeconds: 180 },
    });
  });

  it('accepts the -c forms: comma-separated regions, string booleans and numbers', () => {
    // Act
    const config = configFrom({
      regions: 'eu-central-1, us-west-2',
      gateRegion: 'us-west-2',
      account: '123456789012',
      deletionProtection: 'false',
      gateFallbackSeconds: '60',
      alarmEmail: 'oncall@example.com',
      tracing: 'true',
      systemLogLevel: 'debug',
      workerFunctionUrl: 'true',
      workerUrlConcurrency: '40',
      timerConsumerConcurrency: '2',
      sweepConcurrency: '0',
    });
    // Assess
    expect(config.regions).toEqual(['eu-central-1', 'us-west-2']);
    expect(config.gateRegion).toBe('us-west-2');
    expect(config.account).toBe('123456789012');
    expect(config.deletionProtection).toBe(false);
    expect(config.policy.gateFallbackSeconds).toBe(60);
    expect(config.alarmEmail).toBe('oncall@example.com');
    expect([config.tracing, config.systemLogLevel, config.workerFunctionUrl, config.workerUrlConcurrency]).toEqual([true, 'DEBUG', true, 40]);
    expect([config.timerConsumerConcurrency, config.sweepConcurrency]).toEqual([2, 0]);
  });

  it('takes the concurrency counts as cdk.json numbers too, from 0 (reserve nothing) to the event source’s 1,000', () => {
    expect(configFrom({ timerConsumerConcurrency: 1000, sweepConcurrency: 1 })).toMatchObject({ timerConsumerConcurrency: 1000, sweepConcurrency: 1 });
    expect(configFrom({ timerConsumerConcurrency: 0 })).toMatchObject({ timerConsumerConcurrency: 0 });
  });

  it('takes the account from the CLI credentials when no -c account is given', () => {
    expect(configFrom({}, { CDK_DEFAULT_ACCOUNT: '210987654321' }).account).toBe('210987654321');
  });

  it.each([
    [{ regions: [] }, /regions' is missing or empty/],
    [{ regions: 'us-east-1,us-east-1' }, /names a region twice/],
    [{ regions: 'useast1' }, /not an AWS region name/],
    [{ gateRegion: 'mars-1' }, /gateRegion' has 'mars-1'/],
    [{ account: '1234' }, /not a 12-digit AWS account id/],
    [{ alarmEmail: 'oncall' }, /alarmEmail' has 'oncall', which is not an email address; pass -c alarmEmail=/],
    [{ deletionProtection: 'maybe' }, /deletionProtection' has 'maybe'; use true or false/],
    [{ tracing: 'on' }, /tracing' has 'on'; use true or false/],
    [{ systemLogLevel: 'ERROR' }, /systemLogLevel' has 'ERROR'; use one of WARN, INFO, DEBUG/],
    [{ workerFunctionUrl: 'yes' }, /workerFunctionUrl' has 'yes'; use true or false/],
    [{ workerFunctionUrl: 'true', workerUrlConcurrency: '2.5' }, /workerUrlConcurrency' has '2.5'; use a whole number: 0 reserves nothing/],
    [{ workerUrlConcurrency: '50' }, /workerUrlConcurrency' is set but there is no worker URL; pass -c workerFunctionUrl=true/],
    [{ workerFunctionUrl: 'true', workerUrlConcurrency: '' }, /workerUrlConcurrency' has ''; use a whole number/],
    // An SQS event source's maximum concurrency, which follows the reservation, takes 2–1,000.
    [{ timerConsumerConcurrency: '1' }, /timerConsumerConcurrency' has '1'; use a whole number from 2 to 1000 \(it is also the SQS event source's maximum concurrency.*or 0 to reserve nothing/],
    [{ timerConsumerConcurrency: '1001' }, /timerConsumerConcurrency' has '1001'; use a whole number from 2 to 1000/],
    [{ timerConsumerConcurrency: 'ten' }, /timerConsumerConcurrency' has 'ten'/],
    [{ timerConsumerConcurrency: 2.5 }, /timerConsumerConcurrency' has '2.5'/],
    [{ sweepConcurrency: '2' }, /sweepConcurrency' has '2'; use 1 \(a sweep ends before the next minute's starts, so more is never used\) or 0 to reserve nothing/],
    [{ sweepConcurrency: '-1' }, /sweepConcurrency' has '-1'/],
    [{ sweepConcurrency: true }, /sweepConcurrency' has 'true'/],
    [{ gateStuckThresholdSeconds: '-5' }, /use a positive number of seconds/],
    [{ defaultStuckThresholdSeconds: '1e13' }, /defaultStuckThresholdSeconds' has 10000000000000 seconds, more than the 31536000 \(one year\) a job may name; use at most 31536000 seconds/],
    [{ gateFallbackSeconds: '31536001' }, /gateFallbackSeconds' has 31536001 seconds, more than the 31536000 \(one year\) a job may name; use at most 31536000 seconds/],
    [{ gateStuckThresholdSeconds: '1e300' }, /gateStuckThresholdSeconds' has 1e\+300 seconds, more than the 31536000 \(one year\) a job may name; use at most 31536000 seconds/],
    [{ gateReportIntervalSeconds: '60', gateStuckThresholdSeconds: '60' }, /not below gateStuckThresholdSeconds \(60\).*; lower gateReportIntervalSeconds or raise gateStuckThresholdSeconds/],
  ])('rejects %j with a message that says how to fix it', (context, message) => {
    expect(() => configFrom(context)).toThrow(VigilConfigError);
    expect(() => configFrom(context)).toThrow(message);
  });
});
