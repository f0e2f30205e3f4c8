import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, GraphWidget, MathExpression, Metric, TreatMissingData, type Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';

export interface AgentFleetOperationsProps {
  readonly dashboard: Dashboard;
  /** The Powertools metrics namespace and service of the pool functions' EMF metrics. */
  readonly namespace: string;
  readonly service: string;
  /** Alarm when more than this share of agents started in a window timed out (seed 003 §3). */
  readonly timeoutRateAlarmPercent?: number;
}

const PERIOD = Duration.minutes(5);

/** Agent fleet metrics (seed 003 §3) on the regional dashboard, and an alarm on the timeout rate. */
export class AgentFleetOperations extends Construct {
  public readonly timeoutRateAlarm: Alarm;

  constructor(scope: Construct, id: string, props: AgentFleetOperationsProps) {
    super(scope, id);
    const metric = (metricName: string) =>
      new Metric({ namespace: props.namespace, metricName, dimensionsMap: { service: props.service }, statistic: 'Sum', period: PERIOD });
    const started = metric('AgentStarted');
    const timedOut = metric('AgentTimedOut');
    const timeoutRate = new MathExpression({
      expression: 'IF(started > 0, 100 * timedOut / started, 0)',
      usingMetrics: { started, timedOut },
      label: 'timeout rate %',
      period: PERIOD,
    });
    this.timeoutRateAlarm = timeoutRate.createAlarm(this, 'TimeoutRateAlarm', {
      alarmDescription: 'Vigil: a high share of agents timed out; see GET /pools/{poolId}/metrics for timeouts by type and the recent ones.',
      threshold: props.timeoutRateAlarmPercent ?? 20,
      evaluationPeriods: 1,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
    props.dashboard.addWidgets(
      new GraphWidget({
        title: 'Agents',
        left: ['AgentStarted', 'AgentCompleted', 'AgentTimedOut', 'AgentStalled'].map(metric),
        width: 8,
      }),
      new GraphWidget({ title: 'Agent timeout rate %', left: [timeoutRate], width: 8 }),
      new GraphWidget({
        title: 'Checkpoints, DLQ, escalations',
        left: ['CheckpointMissed', 'ItemDeadLettered', 'TaskEscalated', 'PoolFinished'].map(metric),
        width: 8,
      }),
    );
  }
}
