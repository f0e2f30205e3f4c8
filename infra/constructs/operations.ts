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
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DETECTION_BOUND_MS, QUEUED_WAKE_UP_LATENESS_LIMIT_MS, SWEEP_ENTRIES_WITHIN_BOUND } from '../../shared/app/detection-bound.js';
import { AlarmNotifications } from './alarm-notifications.js';
import type { HandlerSpec } from './handler-access.js';
import type { StateTable } from './state-table.js';
import { stateTableThrottlesAlarm } from './state-table-throttles.js';
import { commonEnvironment, type VigilFunction } from './vigil-function.js';
import type { VigilHttpApi } from './vigil-http-api.js';
import { wakeUpLatenessAlarm } from './wake-up-lateness-alarm.js';

export interface OperationsProps {
  readonly dashboardName: string;
  /** The Powertools service the stack's functions emit their metrics under (their `service` dimension). */
  readonly service: string;
  /** Keyed by a short label used in alarm names and graph legends. */
  readonly functions: Readonly<Record<string, VigilFunction>>;
  readonly deadLetterQueues: Readonly<Record<string, Queue>>;
  readonly timerQueue: Queue;
  /** The function the timer queue wakes: how late it runs due wake-ups is held to the detection bound. */
  readonly timerConsumer: VigilFunction;
  readonly stateTable: StateTable;
  readonly api: VigilHttpApi;
  /** Subscribed to the stack's alarm topic when given. */
  readonly alarmEmail?: string | undefined;
  /**
   * Functions whose first throttle alarms (a throttle is no Lambda error), each with what it costs:
   * a decision held back, or honest callers refused at a cap (the worker URL).
   */
  readonly throttleAlarmed?: Readonly<Record<string, ThrottleAlarmed>>;
}

export interface ThrottleAlarmed {
  readonly fn: VigilFunction;
  readonly whenThrottled: string;
}

/** The functions of `specs` that say what a throttle of them costs (`HandlerSpec.whenThrottled`). */
export function throttleAlarmedOf(
  specs: Readonly<Record<string, HandlerSpec>>,
  functions: Readonly<Record<string, VigilFunction>>,
): Record<string, ThrottleAlarmed> {
  const alarmed: Record<string, ThrottleAlarmed> = {};
  for (const [name, spec] of Object.entries(specs)) {
    const fn = functions[name];
    if (spec.whenThrottled !== undefined && fn) alarmed[name] = { fn, whenThrottled: spec.whenThrottled };
  }
  return alarmed;
}

const PERIOD = Duration.minutes(1);

/**
 * Alarms and one dashboard per stack. Any message in a DLQ is a timer, decision or forwarded
 * event that did not arrive, and any handler error may leave a job untracked until the sweep, so
 * both alarm at the first occurrence. So does what holds a decision back past the detection bound:
 * a throttle of a function that decides, a wake-up the timer queue ran later than the bound leaves,
 * and throttling of the state table that lasts. Every alarm notifies the stack's alarm topic.
 */
export class Operations extends Construct {
  public readonly alarms: Alarm[] = [];
  public readonly wakeUpLatenessAlarm: Alarm;
  public readonly stateTableThrottlesAlarm: Alarm;
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
    for (const [label, { fn, whenThrottled }] of Object.entries(props.throttleAlarmed ?? {})) {
      this.alarms.push(
        fn.handler.metricThrottles({ period: PERIOD, statistic: 'Sum' }).createAlarm(this, `${label}ThrottlesAlarm`, {
          alarmDescription: `Vigil: ${label} was throttled: ${whenThrottled}.`,
          ...firstOccurrence,
        }),
      );
    }
    const lateness = wakeUpLatenessAlarm(this, 'WakeUpLatenessAlarm', props.timerConsumer, PERIOD, props.service);
    const tableThrottles = stateTableThrottlesAlarm(this, 'StateTableThrottlesAlarm', props.stateTable, PERIOD);
    this.wakeUpLatenessAlarm = lateness.alarm;
    this.stateTableThrottlesAlarm = tableThrottles.alarm;
    this.alarms.push(this.wakeUpLatenessAlarm, this.stateTableThrottlesAlarm);
    // Decided events the bus will never carry: refused for good, or dropped from an outbox full while the bus was down.
    for (const [metricName, what] of [
      ['EventsRefused', 'EventBridge refused events for good (a bus policy or IAM condition that does not allow their type); each is logged whole with its reason'],
      ['OutboxEventsDropped', 'an outbox filled while the bus was down and its oldest events were dropped'],
      // The detection bound holds while a sweep ends every fire within its slack (README, "Detection bound").
      ['SweepDueLeft', 'a backstop sweep spent its time budget with overdue wake-ups left: lost wake-ups now wait a sweep or more, past the stated detection bound'],
      [
        'SweptWakeUpPastBound',
        `a backstop sweep fired a lost wake-up later than its due time plus the ${DETECTION_BOUND_MS / 1_000} s detection bound, so its job may have ended that late: ` +
          `more fell due than one sweep ends within the bound (${SWEEP_ENTRIES_WITHIN_BOUND} a minute), or the sweep ran late; its log says how many and how late`,
      ],
    ] as const) {
      const metric = new Metric({ namespace: commonEnvironment.POWERTOOLS_METRICS_NAMESPACE, metricName, dimensionsMap: { service: props.service }, statistic: 'Sum', period: PERIOD });
      this.alarms.push(metric.createAlarm(this, `${metricName}Alarm`, { alarmDescription: `Vigil: ${what}.`, ...firstOccurrence }));
    }
    this.notifications.notifyOn(...this.alarms);
    this.dashboard = new Dashboard(this, 'Dashboard', { dashboardName: props.dashboardName });
    const fns = Object.entries(props.functions);
    const { table } = props.stateTable;
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
        table.metricConsumedReadCapacityUnits({ label: 'read units' }),
        table.metricConsumedWriteCapacityUnits({ label: 'write units' }),
        // Optimistic concurrency at work: lost races that were decided again.
        table.metricConditionalCheckFailedRequests({ label: 'version conflicts' }),
      ]),
    );
    this.dashboard.addWidgets(
      new GraphWidget({
        title: 'Wake-up lateness (timer queue)',
        left: [lateness.metric.with({ label: 'latest wake-up of a batch (ms)' })],
        leftAnnotations: [{ value: QUEUED_WAKE_UP_LATENESS_LIMIT_MS, label: 'the detection bound less delivery' }],
        width: 8,
        height: 6,
      }),
      graph('Table throttles', tableThrottles.series),
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
