import type { Duration } from 'aws-cdk-lib';
import { ComparisonOperator, MathExpression, TreatMissingData, type Alarm, type Metric } from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import { TIMER_INDEX } from '../../shared/adapters/aws/jobs-table.js';
import type { StateTable } from './state-table.js';

/** CloudWatch takes at most 10 metrics into one alarm's math. */
const MOST_METRICS_PER_ALARM = 10;

/**
 * The throttle events of a state table that hold a decision back, and one alarm on their sum: writes
 * to the table and to each of its indexes (an index that cannot take its copy of a write throttles
 * the write), and reads of the table and of the `timers` index the sweep queries. The other indexes'
 * reads serve API calls, whose callers retry. DynamoDB counts an index's events only under its own
 * index dimension.
 */
export function stateTableThrottlesAlarm(scope: Construct, id: string, state: StateTable, period: Duration): { series: Metric[]; alarm: Alarm } {
  const { table } = state;
  const events = (metricName: 'ReadThrottleEvents' | 'WriteThrottleEvents', indexName?: string): Metric =>
    table.metric(metricName, {
      statistic: 'Sum',
      period,
      label: `${metricName === 'ReadThrottleEvents' ? 'reads' : 'writes'} of ${indexName ?? 'the table'}`,
      dimensionsMap: { TableName: table.tableName, ...(indexName !== undefined ? { GlobalSecondaryIndexName: indexName } : {}) },
    });
  const byId: Record<string, Metric> = {
    tableWrites: events('WriteThrottleEvents'),
    tableReads: events('ReadThrottleEvents'),
    [`${TIMER_INDEX}Reads`]: events('ReadThrottleEvents', TIMER_INDEX),
    ...Object.fromEntries(state.indexNames.map((indexName) => [`${indexName}Writes`, events('WriteThrottleEvents', indexName)])),
  };
  if (Object.keys(byId).length > MOST_METRICS_PER_ALARM) {
    throw new Error(`${state.node.path}: ${Object.keys(byId).length} throttle metrics, more than the ${MOST_METRICS_PER_ALARM} one CloudWatch alarm takes; split the alarm`);
  }
  // FILL: a series exists only for minutes with a throttle, and a sum with one absent would be absent.
  const total = new MathExpression({ expression: 'SUM(FILL(METRICS(), 0))', usingMetrics: byId, period, label: 'throttle events' });
  const alarm = total.createAlarm(scope, id, {
    alarmDescription:
      "Vigil: DynamoDB throttled the state table (its writes, an index's copy of them, or the sweep's reads of the timers index) in 2 of the last 3 minutes. " +
      'One burst costs seconds (the SDK and the sweep try again); throttling that lasts fails decisions in every try of a sweep, and each such sweep adds a minute or more to the detection bound. ' +
      "The dashboard's table throttles say which; look for a hot item, or the table's on-demand maximum throughput.",
    threshold: 1,
    evaluationPeriods: 3,
    datapointsToAlarm: 2,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return { series: Object.values(byId), alarm };
}
