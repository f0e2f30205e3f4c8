import { Duration } from 'aws-cdk-lib';
import { Queue, QueueEncryption, type QueueProps } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { acknowledgeNag } from './nag-acknowledgements.js';

const DLQ_RETENTION = Duration.days(14);

/** An SQS queue with server-side encryption and TLS-only access. */
export function secureQueue(scope: Construct, id: string, props: QueueProps = {}): Queue {
  return new Queue(scope, id, { encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true, ...props });
}

/**
 * The dead-letter queue of another SQS queue (its redrive target), kept for the longest retention
 * SQS allows. cdk-nag sees the redrive policy, so SQS3 needs no acknowledgement.
 */
export function redriveQueue(scope: Construct, id: string): Queue {
  return secureQueue(scope, id, { retentionPeriod: DLQ_RETENTION });
}

/**
 * A dead-letter queue for a service that is not SQS (EventBridge rules and targets, Lambda
 * destinations), kept for the longest retention SQS allows. `deadLetterFor` names what feeds it;
 * an alarm on its depth is added by `Operations`.
 */
export function deadLetterQueue(scope: Construct, id: string, deadLetterFor: string): Queue {
  const queue = redriveQueue(scope, id);
  acknowledgeNag(
    queue,
    'SQS3',
    `This queue is itself the dead-letter queue for ${deadLetterFor}; a DLQ of a DLQ would only move the problem. Its depth is alarmed.`,
  );
  return queue;
}
