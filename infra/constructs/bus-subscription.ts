import { Duration } from 'aws-cdk-lib';
import { Rule, type EventPattern, type IEventBus } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { IDestination } from 'aws-cdk-lib/aws-lambda';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { EVENT_HANDLER_RETRY_ATTEMPTS } from '../../shared/config/delivery-settings.js';
import type { VigilFunction } from './vigil-function.js';

export interface BusSubscriptionProps {
  readonly bus: IEventBus;
  readonly eventPattern: EventPattern;
  readonly consumer: VigilFunction;
  /** Receives events EventBridge could not hand over and events the handler kept failing on. */
  readonly deadLetterQueue: Queue;
  readonly description: string;
}

/**
 * A rule delivering events to a Lambda. EventBridge invokes asynchronously, so there are two
 * ways to lose an event: delivery (EventBridge retries, then its DLQ) and the handler failing
 * (Lambda retries, then the on-failure destination). Both end in the same DLQ.
 */
export class BusSubscription extends Construct {
  public readonly rule: Rule;

  constructor(scope: Construct, id: string, props: BusSubscriptionProps) {
    super(scope, id);
    props.consumer.handler.configureAsyncInvoke({
      retryAttempts: EVENT_HANDLER_RETRY_ATTEMPTS,
      maxEventAge: Duration.hours(6),
      onFailure: sendOnlyDestination(props.deadLetterQueue),
    });
    this.rule = new Rule(this, 'Rule', {
      eventBus: props.bus,
      eventPattern: props.eventPattern,
      description: props.description,
      targets: [
        new LambdaFunction(props.consumer.handler, {
          deadLetterQueue: props.deadLetterQueue,
          retryAttempts: 185,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });
  }
}

/**
 * Lambda's on-failure destination as a queue: the function's role may send to it and do nothing
 * else (SqsDestination's grant adds GetQueueUrl and GetQueueAttributes, which Lambda never calls).
 */
const sendOnlyDestination = (queue: Queue): IDestination => ({
  bind: (_scope, fn) => {
    queue.grant(fn, 'sqs:SendMessage');
    return { destination: queue.queueArn };
  },
});
