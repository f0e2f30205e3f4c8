import type { SecretsManagerRotationEvent } from 'aws-lambda';
import { rotateKeySecret } from '../../shared/adapters/aws/key-secret-rotation.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { systemClock } from '../../shared/ports/clock.js';
import { awsClients } from '../../shared/wiring/aws-clients.js';

/** Secrets Manager's rotation function for the key secrets: adds a key to the ring (key-secret-rotation.ts). */
export const handler = lambdaHandler<SecretsManagerRotationEvent, void>(async (event) => rotateKeySecret(awsClients.secrets, event, systemClock.now()));
