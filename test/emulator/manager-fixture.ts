import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateEventBusCommand, EventBridgeClient, PutRuleCommand, PutTargetsCommand } from '@aws-sdk/client-eventbridge';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore } from '../../shared/adapters/aws/dynamo-pool-store.js';
import { createEventBridgeBus } from '../../shared/adapters/aws/eventbridge-bus.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import type { ManagerDeps } from '../../shared/app/manager-deps.js';
import { PageCursors } from '../../shared/app/page-cursors.js';
import { WorkflowTokens } from '../../shared/app/workflow-tokens.js';
import { defaultTimeoutPolicy } from '../../shared/domain/policy.js';
import type { EpochMs } from '../../shared/domain/time.js';
import type { Telemetry } from '../../shared/ports/telemetry.js';
import { createTestQueue, uniqueName, type TestQueue } from '../support/aws-test-resources.js';
import type { EmulatorClientConfig } from '../support/emulator.js';
import { timerFixture, type TimerFixture } from './timer-test-setup.js';

export interface ManagerFixture extends TimerFixture {
  deps: ManagerDeps;
  store: DynamoJobStore;
  /** Receives every event published on the manager's bus (rule: source vigil). */
  busObserver: TestQueue;
}

const quietTelemetry: Telemetry = { info() {}, warn() {}, error() {}, metric() {} };

/** One region manager wired to the AWS adapters only: DynamoDB table, SQS + Scheduler timers, EventBridge bus. */
export async function managerOnEmulator(clientConfig: EmulatorClientConfig, now: EpochMs): Promise<ManagerFixture> {
  const timers = await timerFixture(clientConfig, now);
  const dynamo = new DynamoDBClient(clientConfig);
  const tableName = uniqueName('vigil-jobs');
  await ensureTable(dynamo, tableName, true);
  const doc = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const store = new DynamoJobStore(doc, tableName);

  const events = new EventBridgeClient(clientConfig);
  const eventBusName = uniqueName('vigil-bus');
  await events.send(new CreateEventBusCommand({ Name: eventBusName }));
  const busObserver = await createTestQueue(timers.sqs, 'vigil-bus-observer');
  const rule = uniqueName('vigil-all');
  await events.send(new PutRuleCommand({ Name: rule, EventBusName: eventBusName, EventPattern: JSON.stringify({ source: ['vigil'] }) }));
  await events.send(new PutTargetsCommand({ Rule: rule, EventBusName: eventBusName, Targets: [{ Id: 'observer', Arn: busObserver.arn }] }));

  const deps: ManagerDeps = {
    region: 'eu-west-1',
    managerId: 'eu-west-1/manager',
    jobs: store,
    pools: new DynamoPoolStore(doc, tableName),
    timers: timers.timers,
    bus: createEventBridgeBus({ client: events, eventBusName }),
    clock: timers.clock,
    policy: defaultTimeoutPolicy,
    tokens: new WorkflowTokens(Buffer.from('emulator-test-secret')),
    cursors: new PageCursors(Buffer.from('emulator-test-secret')),
    telemetry: quietTelemetry,
  };
  return { ...timers, deps, store, busObserver };
}
