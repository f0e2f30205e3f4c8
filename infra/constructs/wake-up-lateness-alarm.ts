import type { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, Metric, TreatMissingData, type Alarm } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { DELIVERY_SLACK_MS, DETECTION_BOUND_MS, QUEUED_WAKE_UP_LATENESS_LIMIT_MS, SWEEP_ENTRIES_WITHIN_BOUND } from '../../shared/app/detection-bound.js';
import { WAKE_UP_LATENESS_DIMENSION, WAKE_UP_LATENESS_METRIC } from '../../shared/telemetry/wake-up-lateness.js';
import { commonEnvironment, type VigilFunction } from './vigil-function.js';

const seconds = (ms: number) => ms / 1_000;

/**
 * How late the timer queue's consumer ran due wake-ups (`shared/telemetry/wake-up-lateness.ts`), and
 * an alarm at the first one past what the detection bound leaves for it. Not SQS's
 * `ApproximateAgeOfOldestMessage`: that counts the delay every wake-up is sent with.
 */
export function wakeUpLatenessAlarm(scope: Construct, id: string, consumer: VigilFunction, period: Duration, service: string): { metric: Metric; alarm: Alarm } {
  const metric = new Metric({
    namespace: commonEnvironment.POWERTOOLS_METRICS_NAMESPACE,
    metricName: WAKE_UP_LATENESS_METRIC,
    dimensionsMap: { service, [WAKE_UP_LATENESS_DIMENSION]: consumer.handler.functionName },
    statistic: 'Maximum',
    period,
  });
  const alarm = metric.createAlarm(scope, id, {
    alarmDescription:
      `Vigil: the timer queue ran a due wake-up more than ${seconds(QUEUED_WAKE_UP_LATENESS_LIMIT_MS)} s late, all the ${seconds(DETECTION_BOUND_MS)} s ` +
      `detection bound leaves after the ${seconds(DELIVERY_SLACK_MS)} s it allows to run the decision: its job ended past the bound unless the sweep fired it first, ` +
      `and then the bound rests on the sweep alone (${SWEEP_ENTRIES_WITHIN_BOUND} a minute). The consumer is behind: see its throttles, errors and duration, and context timerConsumerConcurrency.`,
    threshold: QUEUED_WAKE_UP_LATENESS_LIMIT_MS,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return { metric, alarm };
}
