import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { parseTimerMessage } from '../../shared/adapters/aws/timer-message.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { lambdaHandler } from '../../shared/http/lambda-context.js';
import { logger } from '../../shared/telemetry/powertools.js';
import { managerFor } from '../../shared/wiring/manager-resolver.js';

/** Timer queue consumer. A record that fails is retried alone (partial batch response), then dead-lettered. */
export const handler = lambdaHandler<SQSEvent, SQSBatchResponse>(async (event) => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    try {
      await fireJobTimer(await managerFor(record.awsRegion), parseTimerMessage(record.body));
    } catch (error) {
      logger.error('timer failed', { error: error as Error, messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
});
