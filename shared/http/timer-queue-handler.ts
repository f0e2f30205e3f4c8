import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseTimerMessage } from '../adapters/aws/timer-message.js';
import type { TimerRequest } from '../ports/timers.js';
import { logger } from '../telemetry/powertools.js';
import { lambdaHandler } from './lambda-context.js';

/** A timer queue consumer: a record that fails is retried alone (partial batch response), then dead-lettered. */
export const timerQueueHandler = (fire: (timer: TimerRequest, region: string) => Promise<void>) =>
  lambdaHandler<SQSEvent, SQSBatchResponse>(async (event) => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        await fire(parseTimerMessage(record.body), record.awsRegion);
      } catch (error) {
        logger.error('timer failed', { error: error as Error, messageId: record.messageId });
        batchItemFailures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures };
  });
