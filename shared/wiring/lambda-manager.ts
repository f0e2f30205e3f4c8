import { createEventBridgeBus } from '../adapters/aws/eventbridge-bus.js';
import { DynamoHistoryStore } from '../adapters/aws/dynamo-history-store.js';
import { DynamoJobStore } from '../adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../adapters/aws/dynamo-pool-store.js';
import type { ManagerDeps } from '../app/manager-deps.js';
import { PageCursors } from '../app/page-cursors.js';
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
import { keyRingFromEnv } from './key-ring-from-env.js';

async function build(): Promise<ManagerDeps> {
  const region = requiredEnv('AWS_REGION');
  const managerId = `${region}/${process.env['AWS_LAMBDA_FUNCTION_NAME'] ?? 'manager'}`;
  // Only the functions that issue or check worker tokens, or page a list every tenant shares, are granted the secret.
  const keys = await keyRingFromEnv(LambdaEnv.tokenSecretArn);
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
    tokens: new WorkflowTokens(keys),
    cursors: new PageCursors(keys),
    telemetry: new PowertoolsTelemetry({ region }),
  };
}

/** The region manager of this Lambda process, built once from its environment. */
export const lambdaManager: () => Promise<ManagerDeps> = buildOnce(build);
