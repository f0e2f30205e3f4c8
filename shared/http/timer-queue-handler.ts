import type { SQSBatchResponse, SQSEvent, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import { parseTimerMessage } from '../adapters/aws/timer-message.js';
import type { EpochMs } from '../domain/time.js';
import { systemClock, type Clock } from '../ports/clock.js';
import type { TimerRequest } from '../ports/timers.js';
import { logger, recordWakeUpLateness } from '../telemetry/powertools.js';
import { wakeUpLatenessMs } from '../telemetry/wake-up-lateness.js';
import { lambdaHandler } from './lambda-context.js';

type Fire = (timer: TimerRequest, region: string) => Promise<void>;

/**
 * A timer queue consumer. The wake-ups of different jobs in one batch run side by side, so a batch
 * costs its slowest job rather than the sum; wake-ups of the same job run one after another in
 * their batch order, as they would from a FIFO. A record that fails is retried alone (partial batch
 * response), then dead-lettered; an unreadable one fails at once. The batch's lateness (its latest
 * first delivery, as each starts) is what the timer-queue alarm holds to the detection bound.
 */
export const timerQueueHandler = (fire: Fire, clock: Clock = systemClock) =>
  lambdaHandler<SQSEvent, SQSBatchResponse>(async (event, context) => {
    const latenessesMs: number[] = [];
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
          const sentAt = firstDeliverySentAt(record);
          if (sentAt !== undefined) latenessesMs.push(wakeUpLatenessMs(timer.dueAt, sentAt, clock.now()));
          try {
            await fire(timer, record.awsRegion);
          } catch (error) {
            failed(record, error);
          }
        }
      }),
    );
    if (latenessesMs.length > 0) recordWakeUpLateness(context.functionName, Math.max(...latenessesMs));
    return { batchItemFailures };
  });

/**
 * When SQS took a first delivery. A redelivery is left out: it waited out the visibility timeout
 * after a run that failed (logged, and the sweep fires the wake-up meanwhile), or after a throttled
 * invocation (the consumer's throttle alarm); counting that wait would page for each such record.
 */
function firstDeliverySentAt(record: SQSRecord): EpochMs | undefined {
  const attributes: Partial<SQSRecordAttributes> | undefined = record.attributes;
  const sentAt = Number(attributes?.SentTimestamp);
  return attributes?.ApproximateReceiveCount === '1' && Number.isSafeInteger(sentAt) ? sentAt : undefined;
}
