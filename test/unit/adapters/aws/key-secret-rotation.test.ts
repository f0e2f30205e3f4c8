import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
  UpdateSecretVersionStageCommand,
} from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { rotateKeySecret } from '../../../../shared/adapters/aws/key-secret-rotation.js';

const secrets = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'eu-west-1' });
const event = (Step: SecretsManagerRotationEvent['Step']): SecretsManagerRotationEvent => ({ SecretId: 'arn:secret', ClientRequestToken: 'tok-2', Step });
const ring = JSON.stringify({ keys: [{ id: 'k1', key: 'a'.repeat(43), createdAt: 1 }] });
const NOW = Date.UTC(2031, 0, 1);

describe('key secret rotation steps (mocked Secrets Manager)', () => {
  beforeEach(() => secrets.reset());
  afterAll(() => secrets.restore());

  it('createSecret writes the pending ring once; a retried createSecret finds it and writes nothing', async () => {
    secrets.on(DescribeSecretCommand).resolves({ VersionIdsToStages: { 'tok-1': ['AWSCURRENT'], 'tok-2': ['AWSPENDING'] } });
    secrets.on(GetSecretValueCommand, { VersionId: 'tok-2' }).rejectsOnce(new ResourceNotFoundException({ $metadata: {}, message: 'no value' })).resolves({ SecretString: ring });
    secrets.on(GetSecretValueCommand, { VersionStage: 'AWSCURRENT' }).resolves({ SecretString: ring });
    await rotateKeySecret(client, event('createSecret'), NOW);
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(1);
    expect(secrets.commandCalls(PutSecretValueCommand)[0]?.args[0].input).toMatchObject({ ClientRequestToken: 'tok-2', VersionStages: ['AWSPENDING'] });
    await rotateKeySecret(client, event('createSecret'), NOW);
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(1);
  });

  it('createSecret fails on any other read error (so Secrets Manager retries) and writes nothing', async () => {
    secrets.on(DescribeSecretCommand).resolves({ VersionIdsToStages: { 'tok-1': ['AWSCURRENT'], 'tok-2': ['AWSPENDING'] } });
    secrets.on(GetSecretValueCommand).rejects(Object.assign(new Error('slow down'), { name: 'ThrottlingException' }));
    await expect(rotateKeySecret(client, event('createSecret'), NOW)).rejects.toThrow('slow down');
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('finishSecret moves AWSCURRENT from the old version, drops AWSPENDING; once finished, a retry changes nothing', async () => {
    secrets.on(DescribeSecretCommand).resolvesOnce({ VersionIdsToStages: { 'tok-1': ['AWSCURRENT'], 'tok-2': ['AWSPENDING'] } }).resolves({ VersionIdsToStages: { 'tok-1': ['AWSPREVIOUS'], 'tok-2': ['AWSCURRENT', 'AWSPENDING'] } });
    secrets.on(UpdateSecretVersionStageCommand).resolves({});
    await rotateKeySecret(client, event('finishSecret'), NOW);
    const calls = secrets.commandCalls(UpdateSecretVersionStageCommand).map((c) => c.args[0].input);
    expect(calls).toEqual([
      { SecretId: 'arn:secret', VersionStage: 'AWSCURRENT', MoveToVersionId: 'tok-2', RemoveFromVersionId: 'tok-1' },
      { SecretId: 'arn:secret', VersionStage: 'AWSPENDING', RemoveFromVersionId: 'tok-2' },
    ]);
    await rotateKeySecret(client, event('finishSecret'), NOW);
    expect(secrets.commandCalls(UpdateSecretVersionStageCommand)).toHaveLength(2);
  });

  it('a step for a version not pending rotation fails', async () => {
    secrets.on(DescribeSecretCommand).resolves({ VersionIdsToStages: { 'tok-1': ['AWSCURRENT'] } });
    await expect(rotateKeySecret(client, event('testSecret'), NOW)).rejects.toThrow(/not pending/);
  });
});
