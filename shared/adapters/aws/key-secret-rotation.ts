import { randomBytes } from 'node:crypto';
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  UpdateSecretVersionStageCommand,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { ringWithNewKey } from '../../app/keys/key-rotation.js';
import { formatKeyRing, parseKeyRing } from '../../app/keys/key-ring.js';
import type { EpochMs } from '../../domain/time.js';
import { isAwsError } from './aws-error.js';

const CURRENT = 'AWSCURRENT';
const PENDING = 'AWSPENDING';

/**
 * Secrets Manager's four rotation steps for a key secret (worker tokens, the gate's cursors). A
 * rotation adds a key to the ring and never removes one a live token may name, so containers that
 * read the ring before it keep verifying, and new tokens name the new key once it is current.
 */
export async function rotateKeySecret(secrets: SecretsManagerClient, event: SecretsManagerRotationEvent, now: EpochMs): Promise<void> {
  const { SecretId: secretId, ClientRequestToken: token, Step: step } = event;
  const stages = await versionStages(secrets, secretId);
  const tokenStages = stages[token];
  if (tokenStages?.includes(CURRENT)) return; // this rotation has finished already
  // Secrets Manager labels the version AWSPENDING before createSecret; writing it without the label first does no harm.
  if (step === 'createSecret' && (tokenStages === undefined || tokenStages.includes(PENDING))) return createPendingRing(secrets, secretId, token, now);
  if (!tokenStages?.includes(PENDING)) throw new Error(`Version ${token} of secret ${secretId} is not pending rotation.`);
  if (step === 'testSecret') return void parseKeyRing(await valueOf(secrets, secretId, { VersionId: token, VersionStage: PENDING }));
  if (step === 'finishSecret') return finish(secrets, secretId, token, stages);
  // setSecret: nothing outside Secrets Manager holds the key; containers read the ring themselves.
}

async function createPendingRing(secrets: SecretsManagerClient, secretId: string, token: string, now: EpochMs): Promise<void> {
  try {
    await valueOf(secrets, secretId, { VersionId: token, VersionStage: PENDING });
    return; // a retried createSecret: the pending ring was written by the first attempt
  } catch (error) {
    if (!isAwsError(error, 'ResourceNotFoundException')) throw error;
  }
  const current = parseKeyRing(await valueOf(secrets, secretId, { VersionStage: CURRENT }));
  const added = { id: randomBytes(6).toString('base64url'), key: randomBytes(32).toString('base64url'), createdAt: now };
  const pending = ringWithNewKey(current, added, now);
  await secrets.send(new PutSecretValueCommand({ SecretId: secretId, ClientRequestToken: token, SecretString: formatKeyRing(pending), VersionStages: [PENDING] }));
}

async function finish(secrets: SecretsManagerClient, secretId: string, token: string, stages: Record<string, string[]>): Promise<void> {
  const currentVersion = Object.entries(stages).find(([, labels]) => labels.includes(CURRENT))?.[0];
  await secrets.send(new UpdateSecretVersionStageCommand({ SecretId: secretId, VersionStage: CURRENT, MoveToVersionId: token, ...(currentVersion ? { RemoveFromVersionId: currentVersion } : {}) }));
  // Secrets Manager would drop the label itself; dropped here, no later rotation can mistake it for one in progress.
  await secrets.send(new UpdateSecretVersionStageCommand({ SecretId: secretId, VersionStage: PENDING, RemoveFromVersionId: token }));
}

async function versionStages(secrets: SecretsManagerClient, secretId: string): Promise<Record<string, string[]>> {
  const { VersionIdsToStages } = await secrets.send(new DescribeSecretCommand({ SecretId: secretId }));
  return VersionIdsToStages ?? {};
}

async function valueOf(secrets: SecretsManagerClient, secretId: string, version: { VersionId?: string; VersionStage: string }): Promise<string> {
  const { SecretString } = await secrets.send(new GetSecretValueCommand({ SecretId: secretId, ...version }));
  if (SecretString === undefined) throw new Error(`Secret ${secretId} (${version.VersionStage}) has no string value.`);
  return SecretString;
}
