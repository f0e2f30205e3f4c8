import { createEventBridgeBus } from '../adapters/aws/eventbridge-bus.js';
import { DynamoGateStore } from '../adapters/aws/dynamo-gate-store.js';
import { DynamoHistoryStore } from '../adapters/aws/dynamo-history-store.js';
import { LambdaRegionManagers } from '../adapters/aws/lambda-region-managers.js';
import type { GateDeps } from '../app/gate/gate-deps.js';
import { PageCursors } from '../app/page-cursors.js';
import { gatePolicyFromEnv } from '../config/gate-policy-from-env.js';
import { LambdaEnv } from '../config/lambda-env.js';
import { requiredEnv } from '../config/read-env.js';
import { systemClock } from '../ports/clock.js';
import { jitteredBackoff } from '../app/contention-backoff.js';
import { PowertoolsTelemetry } from '../telemetry/powertools.js';
import { awsClients } from './aws-clients.js';
import { awsTimersFromEnv } from './aws-timers.js';
import { buildOnce } from './build-once.js';
import { keyRingFromEnv } from './key-ring-from-env.js';

async function build(): Promise<GateDeps> {
  const gateRegion = requiredEnv('AWS_REGION');
  return {
    gateRegion,
    gates: new DynamoGateStore(awsClients.doc, requiredEnv(LambdaEnv.gateTableName)),
    history: new DynamoHistoryStore(awsClients.doc, requiredEnv(LambdaEnv.gateTableName)),
    regions: new LambdaRegionManagers(
      requiredEnv(LambdaEnv.regions).split(',').map((region) => region.trim()).filter(Boolean),
      requiredEnv(LambdaEnv.submitFromGateFunctionName),
    ),
    timers: awsTimersFromEnv(),
    bus: createEventBridgeBus({ client: awsClients.events, eventBusName: requiredEnv(LambdaEnv.eventBusName) }),
    clock: systemClock,
    backoff: jitteredBackoff,
    policy: gatePolicyFromEnv(),
    telemetry: new PowertoolsTelemetry({ region: gateRegion, role: 'gate' }),
    // The gate has no worker tokens: its own key secret, granted to the jobs list alone.
    cursors: new PageCursors(await keyRingFromEnv(LambdaEnv.cursorSecretArn)),
  };
}

/** The gate of this Lambda process, built once from its environment. */
export const lambdaGate: () => Promise<GateDeps> = buildOnce(build);
