import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { parseTimerMessage } from '../adapters/aws/timer-message.js';
import type { TimerRequest } from '../ports/timers.js';
import { logger } from '../telemetry/powertools.js';
import { lambdaHandler } from './lambda-context.js';

type Fire = (timer: TimerRequest, region: string) => Promise<void>;

/**
 * A timer queue consumer. The wake-ups of different jobs in one batch run side by side, so a batch
 * costs its slowest job rather than the sum; wake-ups of the same job run one after another in
 * their batch order, as they would from a FIFO. A record that fails is retried alone (partial batch
 * response), then dead-lettered; an unreadable one fails at once.
 */
export const timerQueueHandler = (fire: Fire) =>
  lambdaHandler<SQSEvent, SQSBatchResponse>(async (event) => {
    const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
    const failed = (record: SQSRecord, error: unknown) => {
      logger.error('timer failed', { error: error as Error, messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    };
    const sameJob = new Map<string, { timer: TimerRequest; record: SQSRecord }[]>();
    for (const record of event.Records) {
      let timer: TimerRequest;
      try {
        timer = parseTimerMessage(record.body);
      } catch (error) {
        failed(record, error);
        continue;
      }
      const key = `${record.awsRegion} ${timer.scope} ${timer.jobId}`;
      sameJob.set(key, [...(sameJob.get(key) ?? []), { timer, record }]);
    }
    await Promise.all(
      [...sameJob.values()].map(async (wakeUps) => {
        for (const { timer, record } of wakeUps) {
          try {
            await fire(timer, record.awsRegion);
          } catch (error) {
            failed(record, error);
          }
        }
      }),
    );
    return { batchItemFailures };
  });
