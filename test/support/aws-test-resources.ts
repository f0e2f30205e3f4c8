import { randomUUID } from 'node:crypto';
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { pollUntil } from './poll.js';

/** A resource name no other test (or earlier run against the same emulator) uses. */
export const uniqueName = (prefix: string): string => `${prefix}-${randomUUID().slice(0, 12)}`;

export interface TestQueue {
  url: string;
  arn: string;
}

export async function createTestQueue(sqs: SQSClient, prefix: string): Promise<TestQueue> {
  const created = await sqs.send(new CreateQueueCommand({ QueueName: uniqueName(prefix) }));
  const url = required(created.QueueUrl, 'CreateQueue returned no QueueUrl');
  const attributes = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['QueueArn'] }));
  return { url, arn: required(attributes.Attributes?.QueueArn, `no QueueArn for ${url}`) };
}

export interface QueueDepth {
  visible: number;
  delayed: number;
}

export async function queueDepth(sqs: SQSClient, url: string): Promise<QueueDepth> {
  const { Attributes: attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesDelayed'],
    }),
  );
  return {
    visible: Number(attributes?.ApproximateNumberOfMessages ?? Number.NaN),
    delayed: Number(attributes?.ApproximateNumberOfMessagesDelayed ?? Number.NaN),
  };
}

/** One receive call that does not wait: what is visible right now. */
export async function receiveNow(sqs: SQSClient, url: string): Promise<Message[]> {
  const { Messages: messages = [] } = await sqs.send(
    new ReceiveMessageCommand({
      QueueUrl: url,
      MaxNumberOfMessages: 10,
      WaitTimeSeconds: 0,
      MessageSystemAttributeNames: ['All'],
    }),
  );
  return messages;
}

/** Receives until `count` messages have arrived (a visibility timeout keeps them from coming back). */
export async function receiveMessages(sqs: SQSClient, url: string, count: number, timeoutMs = 15_000): Promise<Message[]> {
  const received: Message[] = [];
  return pollUntil(
    async () => {
      received.push(...(await receiveNow(sqs, url)));
      return received.length >= count ? received : undefined;
    },
    { what: () => `${count} message(s) on ${url} (got ${received.length})`, timeoutMs },
  );
}

export function required<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new Error(message);
  return value;
}
