import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import { timerMessageBody } from '../adapters/aws/timer-message.js';
import type { TimerRequest } from '../ports/timers.js';

/** A timer as the timer queue delivers it to its consumer. */
export function sqsTimerEvent(timer: TimerRequest, region: string): SQSEvent {
  return {
    Records: [
      {
        messageId: randomUUID(),
        receiptHandle: 'local',
        body: timerMessageBody(timer),
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: String(Date.now()),
          SenderId: 'local',
          ApproximateFirstReceiveTimestamp: String(Date.now()),
        },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:${region}:000000000000:vigil-timers`,
        awsRegion: region,
      },
    ],
  };
}
