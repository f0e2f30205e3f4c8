import { Arn, Aws, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { ScheduleGroup } from 'aws-cdk-lib/aws-scheduler';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { LambdaEnv } from '../../shared/config/lambda-env.js';
import { acknowledgeWildcardResource } from './nag-acknowledgements.js';
import { deadLetterQueue, redriveQueue, secureQueue } from './secure-queue.js';
import type { VigilFunction } from './vigil-function.js';
import { TIMER_BATCH_SIZE, TIMER_CONSUMER_TIMEOUT_SECONDS, TIMER_MAX_RECEIVES, TIMER_VISIBILITY_TIMEOUT_SECONDS } from '../../shared/config/delivery-settings.js';

export interface TimerDeliveryProps {
  readonly scheduleGroupName: string;
  /** Timeout of the function that consumes the timer queue; the visibility timeout follows it. */
  readonly consumerTimeout: Duration;
}


/**
 * Durable one-shot timers (ARCHITECTURE "Timers"): an SQS delay queue for wake-ups due within
 * 15 minutes, and an EventBridge Scheduler group for later ones, whose schedules drop the same
 * message on the same queue. The Scheduler role can do exactly one thing: send to that queue
 * (and to its own DLQ when delivery fails).
 */
export class TimerDelivery extends Construct {
  public readonly queue: Queue;
  public readonly queueDlq: Queue;
  public readonly scheduleGroup: ScheduleGroup;
  public readonly schedulerRole: Role;
  public readonly schedulerDlq: Queue;

  constructor(scope: Construct, id: string, props: TimerDeliveryProps) {
    super(scope, id);
    this.queueDlq = redriveQueue(this, 'QueueDlq');
    this.queue = secureQueue(this, 'Queue', {
      // AWS guidance for Lambda consumers: six times the function timeout.
      visibilityTimeout: Duration.seconds(props.consumerTimeout.toSeconds() * (TIMER_VISIBILITY_TIMEOUT_SECONDS / TIMER_CONSUMER_TIMEOUT_SECONDS)),
      deadLetterQueue: { queue: this.queueDlq, maxReceiveCount: TIMER_MAX_RECEIVES },
    });
    this.scheduleGroup = new ScheduleGroup(this, 'ScheduleGroup', {
      scheduleGroupName: props.scheduleGroupName,
      // Schedules are derived from the table (timerDueAt), and a retained group's fixed name would block a redeploy.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.schedulerDlq = deadLetterQueue(this, 'SchedulerDlq', 'EventBridge Scheduler deliveries to the timer queue');
    const stack = Stack.of(this);
    this.schedulerRole = new Role(this, 'SchedulerRole', {
      description: `EventBridge Scheduler role of group ${props.scheduleGroupName}: send timer messages only`,
      // Confused-deputy guard: only schedules in this account's group may assume it.
      assumedBy: new ServicePrincipal('scheduler.amazonaws.com').withConditions({
        StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': this.scheduleGroup.scheduleGroupArn },
      }),
    });
    this.queue.grant(this.schedulerRole, 'sqs:SendMessage');
    this.schedulerDlq.grant(this.schedulerRole, 'sqs:SendMessage');
  }

  /** The variables the Timers adapter (`shared/wiring/aws-timers.ts`) reads. */
  get environment(): Record<string, string> {
    return {
      [LambdaEnv.timerQueueUrl]: this.queue.queueUrl,
      [LambdaEnv.timerQueueArn]: this.queue.queueArn,
      [LambdaEnv.scheduleGroupName]: this.scheduleGroup.scheduleGroupName,
      [LambdaEnv.schedulerRoleArn]: this.schedulerRole.roleArn,
      [LambdaEnv.schedulerDlqArn]: this.schedulerDlq.queueArn,
    };
  }

  /** Lets a function arm and disarm timers: send to the queue, upsert/delete schedules in the group, pass the role. */
  grantArm(fn: VigilFunction): void {
    // SendMessage alone: the handlers send to the queue URL they are given, and ask nothing else of it.
    this.queue.grant(fn.handler, 'sqs:SendMessage');
    this.scheduleGroup.grantWriteSchedules(fn.handler);
    this.scheduleGroup.grantDeleteSchedules(fn.handler);
    this.schedulerRole.grantPassRole(fn.handler.grantPrincipal);
    acknowledgeWildcardResource(
      fn.policy,
      Stack.of(this),
      this.anyScheduleInGroupArn(),
      `Timer schedules are named per job at run time; the grant covers only schedules in this stack's group ${this.scheduleGroup.scheduleGroupName}.`,
    );
  }

  // Spelled exactly like ScheduleGroupGrants spells the resource of its grants.
  private anyScheduleInGroupArn(): string {
    return Arn.format({
      region: this.scheduleGroup.env.region,
      account: this.scheduleGroup.env.account,
      partition: Aws.PARTITION,
      service: 'scheduler',
      resource: 'schedule',
      resourceName: `${this.scheduleGroup.scheduleGroupName}/*`,
    });
  }

  /**
   * Delivers the queue to `fn`; a failing record is retried alone (partial batch response). An
   * event source invoking more at once than `fn` has reserved would be throttled, and each throttled
   * batch counts a receive toward the DLQ: capped at the reservation, the surplus waits in the queue.
   */
  consumeWith(fn: VigilFunction): void {
    fn.handler.addEventSource(
      new SqsEventSource(this.queue, {
        batchSize: TIMER_BATCH_SIZE,
        reportBatchItemFailures: true,
        ...(fn.reservedConcurrency !== undefined ? { maxConcurrency: fn.reservedConcurrency } : {}),
      }),
    );
  }
}
