import { Duration } from 'aws-cdk-lib';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  TreatMissingData,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { AlarmNotifications } from './alarm-notifications.js';
import { commonEnvironment, type VigilFunction } from './vigil-function.js';
import type { VigilHttpApi } from './vigil-http-api.js';

export interface OperationsProps {
  readonly dashboardName: string;
  /** Keyed by a short label used in alarm names and graph legends. */
  readonly functions: Readonly<Record<string, VigilFunction>>;
  readonly deadLetterQueues: Readonly<Record<string, Queue>>;
  readonly timerQueue: Queue;
  readonly table: Table;
  readonly api: VigilHttpApi;
  /** Subscribed to the stack's alarm topic when given. */
  readonly alarmEmail?: string | undefined;
  /**
   * Functions whose reserved concurrency is what bounds a flood (the worker URL): their first
   * throttle alarms, since a throttled call is no Lambda error and honest callers get 429s too.
   */
  readonly capped?: Readonly<Record<string, VigilFunction>>;
}

const PERIOD = Duration.minutes(1);

/**
 * Alarms and one dashboard per stack. Any message in a DLQ is a timer, decision or forwarded
 * event that did not arrive, and any handler error may leave a job untracked until the sweep, so
 * both alarm at the first occurrence. Every alarm notifies the stack's alarm topic.
 */
export class Operations extends Construct {
  public readonly alarms: Alarm[] = [];
  public readonly dashboard: Dashboard;
  public readonly notifications: AlarmNotifications;

  constructor(scope: Construct, id: string, props: OperationsProps) {
    super(scope, id);
    this.notifications = new AlarmNotifications(this, 'Notifications', { email: props.alarmEmail });
    for (const [label, queue] of Object.entries(props.deadLetterQueues)) {
      this.alarms.push(
        queue
          .metricApproximateNumberOfMessagesVisible({ period: PERIOD, statistic: 'Maximum' })
          .createAlarm(this, `${label}DepthAlarm`, {
            alarmDescription: `Vigil: messages in the ${label} dead-letter queue; inspect and redrive them.`,
            ...firstOccurrence,
          }),
      );
    }
    for (const [label, fn] of Object.entries(props.functions)) {
      this.alarms.push(
        fn.handler.metricErrors({ period: PERIOD, statistic: 'Sum' }).createAlarm(this, `${label}ErrorsAlarm`, {
          alarmDescription: `Vigil: the ${label} handler failed; see its log group ${fn.logGroup.logGroupName}.`,
          ...firstOccurrence,
        }),
      );
    }
    for (const [label, fn] of Object.entries(props.capped ?? {})) {
      this.alarms.push(
        fn.handler.metricThrottles({ period: PERIOD, statistic: 'Sum' }).createAlarm(this, `${label}ThrottlesAlarm`, {
          alarmDescription: `Vigil: calls to ${label} were throttled at its reserved concurrency: a flood, or more workers than it allows (context workerUrlConcurrency).`,
          ...firstOccurrence,
        }),
      );
    }
    // Decided events the bus will never carry: refused for good, or dropped from an outbox full while the bus was down.
    for (const [metricName, what] of [
      ['EventsRefused', 'EventBridge refused events for good (a bus policy or IAM condition that does not allow their type); each is logged whole with its reason'],
      ['OutboxEventsDropped', 'an outbox filled while the bus was down and its oldest events were dropped'],
      // The detection bound holds while one sweep's budget fires every lost wake-up due (README, "Detection bound").
      ['SweepDueLeft', 'a backstop sweep spent its time budget with overdue wake-ups left: lost wake-ups now wait a sweep or more, past the stated detection bound'],
    ] as const) {
      const metric = new Metric({ namespace: commonEnvironment.POWERTOOLS_METRICS_NAMESPACE, metricName, dimensionsMap: { service: commonEnvironment.POWERTOOLS_SERVICE_NAME }, statistic: 'Sum', period: PERIOD });
      this.alarms.push(metric.createAlarm(this, `${metricName}Alarm`, { alarmDescription: `Vigil: ${what}.`, ...firstOccurrence }));
    }
    this.notifications.notifyOn(...this.alarms);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    const fns = Object.entries(props.functions);
    this.dashboard.addWidgets(
      graph('API requests and errors', [props.api.api.metricCount(), props.api.api.metricClientError(), props.api.api.metricServerError()]),
      graph('API latency p99', [props.api.api.metricLatency({ statistic: 'p99' })]),
      new AlarmStatusWidget({ title: 'Alarms', alarms: this.alarms, width: 8, height: 6 }),
    );
    this.dashboard.addWidgets(
      graph('Handler errors', fns.map(([label, fn]) => fn.handler.metricErrors({ label, statistic: 'Sum' }))),
      graph('Handler duration p99', fns.map(([label, fn]) => fn.handler.metricDuration({ label, statistic: 'p99' }))),
      graph('Handler throttles', fns.map(([label, fn]) => fn.handler.metricThrottles({ label, statistic: 'Sum' }))),
    );
    this.dashboard.addWidgets(
      graph(
        'Dead-letter queue depth',
        Object.entries(props.deadLetterQueues).map(([label, q]) => q.metricApproximateNumberOfMessagesVisible({ label, statistic: 'Maximum' })),
      ),
      graph('Timer queue', [
        props.timerQueue.metricApproximateNumberOfMessagesVisible({ label: 'due now' }),
        props.timerQueue.metricApproximateNumberOfMessagesNotVisible({ label: 'in flight' }),
        props.timerQueue.metricNumberOfMessagesSent({ label: 'armed', statistic: 'Sum' }),
      ]),
      graph('Table', [
        props.table.metricConsumedReadCapacityUnits({ label: 'read units' }),
        props.table.metricConsumedWriteCapacityUnits({ label: 'write units' }),
        // Optimistic concurrency at work: lost races that were decided again.
        props.table.metricConditionalCheckFailedRequests({ label: 'version conflicts' }),
      ]),
    );
  }
}

const firstOccurrence = {
  threshold: 1,
  evaluationPeriods: 1,
  comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
  treatMissingData: TreatMissingData.NOT_BREACHING,
} as const;

const graph = (title: string, metrics: IMetric[]) => new GraphWidget({ title, left: metrics, width: 8, height: 6 });
