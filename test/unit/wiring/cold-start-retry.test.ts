import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LambdaEnv } from '../../../shared/config/lambda-env.js';

/**
 * a failed cold start must not be cached for the container's life. One throttled
 * GetSecretValue fails that invocation only; the next invocation builds again and succeeds.
 */
const lambdaEnv: Record<string, string> = {
  AWS_REGION: 'eu-west-1',
  [LambdaEnv.jobsTableName]: 'jobs',
  [LambdaEnv.gateTableName]: 'gate',
  [LambdaEnv.eventBusName]: 'bus',
  [LambdaEnv.timerQueueUrl]: 'https://sqs.eu-west-1.amazonaws.com/123456789012/timers',
  [LambdaEnv.timerQueueArn]: 'arn:aws:sqs:eu-west-1:123456789012:timers',
  [LambdaEnv.scheduleGroupName]: 'group',
  [LambdaEnv.schedulerRoleArn]: 'arn:aws:iam::123456789012:role/scheduler',
  [LambdaEnv.schedulerDlqArn]: 'arn:aws:sqs:eu-west-1:123456789012:dlq',
  [LambdaEnv.tokenSecretArn]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:token',
  [LambdaEnv.regions]: 'eu-west-1',
  [LambdaEnv.submitFromGateFunctionName]: 'submit-from-gate',
};

describe('Lambda wiring retries a failed cold start', () => {
  const secrets = mockClient(SecretsManagerClient);
  beforeAll(() => Object.entries(lambdaEnv).forEach(([name, value]) => vi.stubEnv(name, value)));
  afterAll(() => {
    vi.unstubAllEnvs();
    secrets.restore();
  });

  it('a throttled GetSecretValue fails one invocation; the next one builds the manager', async () => {
    // Prepare
    vi.resetModules();
    const throttled = Object.assign(new Error('Rate exceeded'), { name: 'ThrottlingException' });
    secrets.on(GetSecretValueCommand).rejectsOnce(throttled).resolves({ SecretString: 'k'.repeat(32) });
    const { lambdaManager } = await import('../../../shared/wiring/lambda-manager.js');

    // Act
    const first = lambdaManager();
    await expect(first).rejects.toThrow('Rate exceeded');
    const second = await lambdaManager();
    const third = await lambdaManager();

    // Assess
    expect(second.region).toBe('eu-west-1');
    expect(third).toBe(second);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('the gate wiring, failing once at build, builds again on the next invocation', async () => {
    // Prepare
    vi.resetModules();
    vi.stubEnv(LambdaEnv.gateTableName, '');
    const { lambdaGate } = await import('../../../shared/wiring/lambda-gate.js');

    // Act
    await expect(lambdaGate()).rejects.toThrow(LambdaEnv.gateTableName);
    vi.stubEnv(LambdaEnv.gateTableName, 'gate');
    const gate = await lambdaGate();

    // Assess
    expect(gate.gateRegion).toBe('eu-west-1');
    expect(await lambdaGate()).toBe(gate);
  });
});
