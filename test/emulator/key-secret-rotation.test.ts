import { CreateSecretCommand, DescribeSecretCommand, GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { KEY_SIGNING_DELAY_MS, KeyRingCache } from '../../shared/app/keys/key-ring-cache.js';
import { parseKeyRing } from '../../shared/app/keys/key-ring.js';
import { WorkflowTokens } from '../../shared/app/workflow-tokens.js';
import { localContext } from '../../shared/local/lambda-context.js';
import { required, uniqueName } from '../support/aws-test-resources.js';
import { describeWithEmulator } from '../support/emulator.js';

type RotationHandler = (event: SecretsManagerRotationEvent, context: ReturnType<typeof localContext>) => Promise<void>;

describeWithEmulator('the key secret rotation function against Secrets Manager (emulator)', (emulator) => {
  let secrets: SecretsManagerClient;
  let handler: RotationHandler;
  beforeAll(async () => {
    const config = emulator.clientConfig();
    secrets = new SecretsManagerClient(config);
    // The handler's module-scope client reads the endpoint and credentials when it is first imported.
    vi.stubEnv('AWS_ENDPOINT_URL', config.endpoint);
    vi.stubEnv('AWS_REGION', config.region);
    vi.stubEnv('AWS_ACCESS_KEY_ID', config.credentials.accessKeyId);
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', config.credentials.secretAccessKey);
    vi.resetModules();
    handler = (await import('../../functions/secrets/rotate-key-secret.js')).handler;
  });
  afterAll(() => vi.unstubAllEnvs());

  const newSecret = async (value: string) => {
    const name = uniqueName('vigil-token-key');
    await secrets.send(new CreateSecretCommand({ Name: name, SecretString: value }));
    return name;
  };
  /**
   * Stands in for RotateSecret, which in moto without a deployed function finishes the rotation
   * itself: a new version id, with which Secrets Manager then calls the function's four steps.
   */
  const startRotation = async (_secretId: string) => randomUUID();
  const step = (secretId: string, token: string, Step: SecretsManagerRotationEvent['Step']) =>
    handler({ Step, SecretId: secretId, ClientRequestToken: token }, localContext('vigil-rotate-key-secret', 'us-east-1'));
  const rotate = async (secretId: string) => {
    const token = await startRotation(secretId);
    for (const name of ['createSecret', 'setSecret', 'testSecret', 'finishSecret'] as const) await step(secretId, token, name);
    return token;
  };
  // By label: moto's unlabelled read keeps answering the first version after the label moved (AWS answers AWSCURRENT's).
  const current = async (secretId: string) => required((await secrets.send(new GetSecretValueCommand({ SecretId: secretId, VersionStage: 'AWSCURRENT' }))).SecretString, 'no value');
  const stagesOf = async (secretId: string) => (await secrets.send(new DescribeSecretCommand({ SecretId: secretId }))).VersionIdsToStages ?? {};

  it('a bare key becomes a ring keeping it as key 0; the new key is current and no version stays pending', async () => {
    // Prepare
    const secretId = await newSecret('a-bare-key-of-before-rotation');
    const issuedBefore = new WorkflowTokens(Buffer.from('a-bare-key-of-before-rotation')).sign('job-1', 'wf-1', 'worker-a', 'inc-1');
    // Act
    const token = await rotate(secretId);
    // Assess
    const ring = parseKeyRing(await current(secretId));
    expect(ring.keys.map((k) => k.id)).toEqual(['0', expect.stringMatching(/^[A-Za-z0-9_-]{8}$/)]);
    expect(ring.keys[0]?.key).toBe('a-bare-key-of-before-rotation');
    const stages = await stagesOf(secretId);
    expect(stages[token]).toEqual(['AWSCURRENT']);
    expect(Object.values(stages).flat()).not.toContain('AWSPENDING');
    // The new key signs once its signing delay has passed; until then key 0 still does.
    const matureAt = (ring.keys[1]?.createdAt ?? 0) + KEY_SIGNING_DELAY_MS;
    const signerAt = (nowMs: number) => new WorkflowTokens(new KeyRingCache(ring, async () => ring, () => nowMs));
    await expect(signerAt(matureAt).verify(issuedBefore, 'worker-a')).resolves.toMatchObject({ jobId: 'job-1' });
    expect(signerAt(matureAt).sign('job-1', 'wf-1', 'worker-a', 'inc-1').split('.')[3]).toMatch(new RegExp(`^${ring.keys[1]?.id}~`));
    expect(signerAt(matureAt - 1).sign('job-1', 'wf-1', 'worker-a', 'inc-1').split('.')[3]).toMatch(/^0~/);
  });

  it('each rotation appends one key, newest last, and keeps the keys of the rotations before', async () => {
    // Prepare
    const secretId = await newSecret('a-bare-key-of-before-rotation');
    await rotate(secretId);
    const afterFirst = parseKeyRing(await current(secretId));
    // Act
    await rotate(secretId);
    // Assess
    const afterSecond = parseKeyRing(await current(secretId));
    expect(afterSecond.keys.slice(0, 2)).toEqual(afterFirst.keys);
    expect(afterSecond.keys).toHaveLength(3);
  });

  it('a retried createSecret writes nothing new; until finishSecret the current ring is unchanged', async () => {
    // Prepare
    const secretId = await newSecret('a-bare-key-of-before-rotation');
    const token = await startRotation(secretId);
    await step(secretId, token, 'createSecret');
    const pending = async () => (await secrets.send(new GetSecretValueCommand({ SecretId: secretId, VersionId: token, VersionStage: 'AWSPENDING' }))).SecretString;
    const first = await pending();
    // Act
    await step(secretId, token, 'createSecret');
    await step(secretId, token, 'testSecret');
    // Assess
    expect(await pending()).toBe(first);
    expect(await current(secretId)).toBe('a-bare-key-of-before-rotation');
    expect(parseKeyRing(required(first, 'no pending value')).keys).toHaveLength(2);
  });

  it('refuses to finish a rotation to a version that is not pending', async () => {
    // Prepare
    const secretId = await newSecret('a-bare-key-of-before-rotation');
    // Act / Assess
    await expect(step(secretId, randomUUID(), 'finishSecret')).rejects.toThrow(/not pending rotation/);
    expect(await current(secretId)).toBe('a-bare-key-of-before-rotation');
  });
});
