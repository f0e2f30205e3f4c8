import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { awsClients } from './aws-clients.js';

/**
 * The key secret whose ARN the environment variable `envName` holds, read once at cold start, or
 * `undefined` in a function that is not granted one (its stack sets the variable only where granted).
 */
export async function secretFromEnv(envName: string): Promise<Buffer | undefined> {
  const secretId = process.env[envName];
  if (!secretId) return undefined;
  const { SecretString } = await awsClients.secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
  if (!SecretString) throw new Error(`Secret ${envName} has no string value`);
  return Buffer.from(SecretString, 'utf8');
}
