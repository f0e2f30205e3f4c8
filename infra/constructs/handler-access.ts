import { Stack, type Duration } from 'aws-cdk-lib';
import { Grant } from 'aws-cdk-lib/aws-iam';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { IEventBus } from 'aws-cdk-lib/aws-events';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { acknowledgeWildcardResource } from './nag-acknowledgements.js';
import type { ConcurrencyReservation } from '../config/vigil-config.js';
import type { TimerDelivery } from './timer-delivery.js';
import type { VigilFunction } from './vigil-function.js';

/** What a handler may do to its stack's resources. Every grant below is scoped to one resource. */
export interface HandlerAccess {
  readonly table: 'read' | 'readWrite';
  /** events:PutEvents on the stack's own bus (decision effects and the item outbox). */
  readonly publishEvents: boolean;
  /** Send to the timer queue, upsert/delete schedules in the group, pass the Scheduler role. */
  readonly armTimers: boolean;
  /** Read the stack's key secret: a region's workflow-token HMAC key (its page cursors' key derives from it), the gate's page-cursor key. */
  readonly keySecret: boolean;
}

export interface HandlerSpec {
  /** Relative to the repository root; the file exports `handler`. */
  readonly entry: string;
  readonly description: string;
  /** `undefined`: the handler touches no state (health). */
  readonly access: HandlerAccess | undefined;
  readonly timeout?: Duration;
  /** A fixed physical name, for functions another region calls by name. */
  readonly functionName?: string;
  /** The context key whose concurrency is reserved for it; none: it draws on the account's unreserved pool. */
  readonly reservedConcurrency?: ConcurrencyReservation;
  /**
   * What a throttle of it costs, when that is a decision held back past the detection bound: its
   * first throttle alarms with this as the reason. None: a throttled call is answered 429 and
   * retried by its caller (the API), or waits on no deadline (submissions).
   */
  readonly whenThrottled?: string;
}

export const readOnly: HandlerAccess = { table: 'read', publishEvents: false, armTimers: false, keySecret: false };

/**
 * Anything that goes through `decideAndSave`: it may write the item, run ArmTimer/DisarmTimer
 * effects and flush the item's outbox to the bus, whatever the decision at hand is.
 */
export const decider: HandlerAccess = { table: 'readWrite', publishEvents: true, armTimers: true, keySecret: false };

export interface StateResources {
  readonly table: Table;
  readonly bus: IEventBus;
  readonly timers: TimerDelivery;
  readonly keySecret?: ISecret;
}

/**
 * Exactly the item calls the stores make (shared/adapters/aws): CDK's grantRead/WriteData would add
 * Scan, DeleteItem, ConditionCheckItem, DescribeTable and stream reads, which no handler uses.
 */
const TABLE_ACTIONS = {
  read: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query'],
  readWrite: ['dynamodb:BatchGetItem', 'dynamodb:GetItem', 'dynamodb:Query', 'dynamodb:BatchWriteItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'],
} as const;

export function grantAccess(fn: VigilFunction, access: HandlerAccess, resources: StateResources): void {
  // Table.grant covers the table and, when it has any, its indexes.
  resources.table.grant(fn.handler, ...TABLE_ACTIONS[access.table]);
  acknowledgeWildcardResource(
    fn.policy,
    Stack.of(resources.table),
    `${resources.table.tableArn}/index/*`,
    'Table grants cover "<table>/index/*": the handlers query the timers and byWorker indexes of their own table.',
  );
  if (access.publishEvents) resources.bus.grantPutEventsTo(fn.handler);
  if (access.armTimers) resources.timers.grantArm(fn);
  if (access.keySecret) {
    if (!resources.keySecret) throw new Error(`${fn.node.path} needs its stack's key secret, but the stack has none`);
    // GetSecretValue alone (grantRead adds DescribeSecret, which no handler calls).
    Grant.addToPrincipal({ grantee: fn.handler, actions: ['secretsmanager:GetSecretValue'], resourceArns: [resources.keySecret.secretArn] });
  }
}
