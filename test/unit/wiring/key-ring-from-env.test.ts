import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { formatKeyRing } from '../../../shared/app/keys/key-ring.js';
import { WorkflowTokens } from '../../../shared/app/workflow-tokens.js';
import { LambdaEnv } from '../../../shared/config/lambda-env.js';
import { keyRingFromEnv } from '../../../shared/wiring/key-ring-from-env.js';

const key = (id: string) => ({ id, key: `region-key-${id}-0123456789abcdef`, createdAt: 1 });

describe('a Lambda reads its key ring from Secrets Manager', () => {
  const secrets = mockClient(SecretsManagerClient);
  beforeEach(() => {
    secrets.reset();
    vi.stubEnv(LambdaEnv.tokenSecretArn, 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:token');
  });
  afterAll(() => {
    vi.unstubAllEnvs();
    secrets.restore();
  });

  it('a warm container verifies a token under a key rotated in after its cold start, reading the secret once more', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand).resolvesOnce({ SecretString: formatKeyRing({ keys: [key('k1')] }) }).resolves({ SecretString: formatKeyRing({ keys: [key('k1'), key('k2')] }) });
    const warm = new WorkflowTokens(await keyRingFromEnv(LambdaEnv.tokenSecretArn));
    const rotated = new WorkflowTokens(Buffer.from(key('k2').key)).sign('job-1', 'wf-1', 'worker-a', 'inc-1').replace('.0~', '.k2~');
    // Act
    const claim = await warm.verify(rotated, 'worker-a');
    // Assess
    expect(claim.jobId).toBe('job-1');
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('a malformed ring fails the cold start with a clear error', async () => {
    // Prepare
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '{"keys":[]}' });
    // Act / Assess
    await expect(keyRingFromEnv(LambdaEnv.tokenSecretArn)).rejects.toThrow(/neither a bare key nor a key ring/);
  });
});
