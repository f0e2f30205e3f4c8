import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { KeyRingCache } from '../app/keys/key-ring-cache.js';
import { parseKeyRing, type KeyRing } from '../app/keys/key-ring.js';
import { systemClock } from '../ports/clock.js';
import { logger } from '../telemetry/powertools.js';
import { awsClients } from './aws-clients.js';

/**
 * The key ring of the secret whose ARN the environment variable `envName` holds, read at cold start
 * and again (throttled) when a token or cursor names a key rotated in since, or `undefined` in a
 * function that is not granted one (its stack sets the variable only where granted).
 */
export async function keyRingFromEnv(envName: string): Promise<KeyRingCache | undefined> {
  const secretId = process.env[envName];
  if (!secretId) return undefined;
  const read = async (): Promise<KeyRing> => {
    const { SecretString } = await awsClients.secrets.send(new GetSecretValueCommand({ SecretId: secretId }));
    if (!SecretString) throw new Error(`Secret ${envName} has no string value`);
    return parseKeyRing(SecretString);
  };
  // A failed reload answers `keys_refreshing` (503), never a 500: the log is where it shows.
  const reload = () =>
    read().catch((error: unknown) => {
      logger.warn('the key ring could not be read again; unknown key ids answer keys_refreshing until a read succeeds', { envName, error: error as Error });
      throw error;
    });
  return new KeyRingCache(await read(), reload, () => systemClock.now());
}
