import { GetSecretValueCommand } from '@aws-sdk/client-secrets-manager';
import { createEventBridgeBus } from '../adapters/aws/eventbridge-bus.js';
import { DynamoHistoryStore } from '../adapters/aws/dynamo-history-store.js';
import { DynamoJobStore } from '../adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../adapters/aws/dynamo-pool-store.js';
import type { ManagerDeps } from '../app/manager-deps.js';
import { WorkflowTokens } from '../app/workflow-tokens.js';
import { LambdaEnv } from '../config/lambda-env.js';
import { policyFromEnv } from '../config/policy-from-env.js';
import { requiredEnv } from '../config/read-env.js';
import { systemClock } from '../ports/clock.js';
import { jitteredBackoff } from '../app/contention-backoff.js';
import { PowertoolsTelemetry } from '../telemetry/powertools.js';
import { awsClients } from './aws-clients.js';
import { awsTimersFromEnv } from './aws-timers.js';
import { buildOnce } from './build-once.js';

async function tokenSecret(): Promise<Buffer> {
  const { SecretString } = await awsClients.secrets.send(new GetSecretValueCommand({ SecretId: requiredEnv(LambdaEnv.tokenSecretArn) }));
  if (!SecretString) throw new Error(`Secret ${LambdaEnv.tokenSecretArn} has no string value`);
  return Buffer.from(SecretString, 'utf8');
}

async function build(): Promise<ManagerDeps> {
  const region = requiredEnv('AWS_REGION');
  const managerId = `${region}/${process.env['AWS_LAMBDA_FUNCTION_NAME'] ?? 'manager'}`;
  return {
    region,
    managerId,
    jobs: new DynamoJobStore(awsClients.doc, requiredEnv(LambdaEnv.jobsTableName)),
    history: new DynamoHistoryStore(awsClients.doc, requiredEnv(LambdaEnv.jobsTableName)),
    pools: new DynamoPoolStore(awsClients.doc, requiredEnv(LambdaEnv.jobsTableName)),
    timers: awsTimersFromEnv(),
    bus: createEventBridgeBus({ client: awsClients.events, eventBusName: requiredEnv(LambdaEnv.eventBusName) }),
    clock: systemClock,
    backoff: jitteredBackoff,
    policy: policyFromEnv(),
    // Only the functions that issue or check worker tokens are granted the secret.
    tokens: new WorkflowTokens(process.env[LambdaEnv.tokenSecretArn] ? await tokenSecret() : undefined),
    telemetry: new PowertoolsTelemetry({ region }),
  };
}

/** The region manager of this Lambda process, built once from its environment. */
export const lambdaManager: () => Promise<ManagerDeps> = buildOnce(build);
