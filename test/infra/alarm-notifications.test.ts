import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { GATE_SERVICE_NAME, type VigilFunction } from '../../infra/constructs/vigil-function.js';
import { DELIVERY_SLACK_MS, DETECTION_BOUND_MS, SWEEP_ENTRIES_WITHIN_BOUND } from '../../shared/app/detection-bound.js';
import { ALARM_METRICS_PER_STACK } from '../../shared/simulation/cost/prices.js';
import { WAKE_UP_LATENESS_METRIC } from '../../shared/telemetry/wake-up-lateness.js';
import { logicalId, resourceOf, resourcesOfType } from './support/template-queries.js';
import { synthesizeVigil, type SynthesizedVigil } from './support/vigil-app.js';

type VigilStack = SynthesizedVigil['gate'] | SynthesizedVigil['regional'][number];

let byDefault: SynthesizedVigil;
beforeAll(() => {
  byDefault = synthesizeVigil();
});

const stacksOf = (vigil: SynthesizedVigil): VigilStack[] => [...vigil.regional, vigil.gate];
const templatesOf = (vigil: SynthesizedVigil): [string, Template][] => stacksOf(vigil).map((stack) => [stack.stackName, vigil.template(stack)]);

const refOf = (value: unknown) => JSON.stringify(value);

/** The Powertools service a stack's functions emit their metrics under (alarm-metric-identity.test.ts). */
const serviceOf = (stack: VigilStack): string => ('OnManagerReport' in stack.functions ? GATE_SERVICE_NAME : 'vigil');

/** The stack's one alarm topic, as alarm actions name it. */
const topicActionOf = (template: Template) => [{ Ref: Object.keys(resourcesOfType(template, 'AWS::SNS::Topic'))[0] }];

/** What CloudWatch bills an alarm for: one metric, or each metric a metric-math alarm reads. */
const billedMetricsOf = (template: Template): number =>
  Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).reduce((sum, alarm) => {
    const metrics = alarm.Properties?.['Metrics'] as Array<{ MetricStat?: unknown }> | undefined;
    return sum + (metrics ? metrics.filter((metric) => metric.MetricStat !== undefined).length : 1);
  }, 0);

describe('alarms reach someone', () => {
  it("the cost model prices each stack's alarms as deployed (shared/simulation/cost/prices.ts)", () => {
    for (const stack of byDefault.regional) expect(billedMetricsOf(byDefault.template(stack)), stack.stackName).toBe(ALARM_METRICS_PER_STACK.region);
    expect(billedMetricsOf(byDefault.template(byDefault.gate))).toBe(ALARM_METRICS_PER_STACK.gate);
  });

  it('every alarm of every stack notifies the stack’s own topic, which is encrypted with a key CloudWatch may use', () => {
    for (const [stackName, template] of templatesOf(byDefault)) {
      const topics = Object.entries(resourcesOfType(template, 'AWS::SNS::Topic'));
      expect(topics.length, stackName).toBe(1);
      const [topicId, topic] = topics[0] ?? [];
      const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'));
      expect(alarms.length, stackName).toBeGreaterThan(5);
      for (const alarm of alarms) expect(refOf(alarm.Properties?.['AlarmActions']), stackName).toBe(refOf([{ Ref: topicId }]));
      const keyId = (topic?.Properties?.['KmsMasterKeyId'] as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
      const key = keyId ? resourcesOfType(template, 'AWS::KMS::Key')[keyId] : undefined;
      expect(key?.Properties?.['EnableKeyRotation'], stackName).toBe(true);
      const keyPolicy = JSON.stringify(key?.Properties?.['KeyPolicy']);
      expect(keyPolicy, stackName).toContain('cloudwatch.amazonaws.com');
      expect(keyPolicy, stackName).toContain('kms:GenerateDataKey*');
    }
  });

  it('-c alarmEmail subscribes that address to every stack’s alarm topic; without it none is subscribed', () => {
    for (const [stackName, template] of templatesOf(synthesizeVigil({ context: { alarmEmail: 'oncall@example.com' } }))) {
      const subscriptions = Object.values(resourcesOfType(template, 'AWS::SNS::Subscription')).map((s) => s.Properties);
      expect(subscriptions, stackName).toEqual([expect.objectContaining({ Protocol: 'email', Endpoint: 'oncall@example.com' })]);
    }
    for (const [stackName, template] of templatesOf(byDefault)) expect(Object.keys(resourcesOfType(template, 'AWS::SNS::Subscription')), stackName).toEqual([]);
  });

  it('every stack alarms on the first decided event the bus will never carry: refused for good, or dropped from a full outbox', () => {
    for (const stack of stacksOf(byDefault)) {
      const { stackName } = stack;
      const template = byDefault.template(stack);
      const alarmed = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'))
        .map((alarm) => alarm.Properties ?? {})
        .filter((p) => p['Namespace'] === 'Vigil' && p['Threshold'] === 1)
        .map((p) => `${String(p['MetricName'])} ${JSON.stringify(p['Dimensions'])}`);
      expect(alarmed, stackName).toEqual(
        expect.arrayContaining(['EventsRefused', 'OutboxEventsDropped', 'SweepDueLeft'].map((name) => `${name} ${JSON.stringify([{ Name: 'service', Value: serviceOf(stack) }])}`)),
      );
    }
  });
});

/** Each stack's functions whose throttling holds a decision back: its timer consumer, its sweep, and the consumer of the other side's decisions or reports. */
function decidersOf(stack: VigilStack): { timerConsumer: VigilFunction; deciders: VigilFunction[] } {
  if ('OnManagerReport' in stack.functions) {
    const { FireGateTimer, SweepGateTimers, OnManagerReport } = stack.functions;
    return { timerConsumer: FireGateTimer, deciders: [FireGateTimer, SweepGateTimers, OnManagerReport] };
  }
  const { FireJobTimer, SweepJobTimers, OnGateDecision } = stack.functions;
  return { timerConsumer: FireJobTimer, deciders: [FireJobTimer, SweepJobTimers, OnGateDecision] };
}

describe('what would make jobs end past the detection bound alarms', () => {
  it('the first throttle of each function that decides (timer consumer, sweep, decision or report consumer), and of no API function, whose callers retry', () => {
    for (const stack of stacksOf(byDefault)) {
      const template = byDefault.template(stack);
      const throttleAlarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'))
        .map((alarm) => alarm.Properties ?? {})
        .filter((p) => p['MetricName'] === 'Throttles');
      const alarmedFunctions = throttleAlarms.map((p) => refOf(p['Dimensions']));
      expect(alarmedFunctions.sort(), stack.stackName).toEqual(
        decidersOf(stack)
          .deciders.map((fn) => refOf([{ Name: 'FunctionName', Value: { Ref: logicalId(fn.handler) } }]))
          .sort(),
      );
      for (const alarm of throttleAlarms) {
        expect(alarm, stack.stackName).toMatchObject({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Period: 60, Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold', AlarmActions: topicActionOf(template) });
        // Each says what its throttle delays.
        expect(alarm['AlarmDescription'], stack.stackName).toMatch(/late|not at all/);
      }
    }
  });

  it('the first wake-up a sweep fired past its due time plus the bound (SweptWakeUpPastBound: the sweep was behind), in the regions (jobs, pool items) and the gate', () => {
    for (const stack of stacksOf(byDefault)) {
      const template = byDefault.template(stack);
      const alarms = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm'))
        .map((alarm) => alarm.Properties ?? {})
        .filter((p) => p['MetricName'] === 'SweptWakeUpPastBound');
      expect(alarms, stack.stackName).toEqual([
        expect.objectContaining({
          Namespace: 'Vigil',
          // The sweep emits it without dimensions of its own: Powertools adds the service.
          Dimensions: [{ Name: 'service', Value: serviceOf(stack) }],
          Statistic: 'Sum',
          Period: 60,
          Threshold: 1,
          EvaluationPeriods: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
          TreatMissingData: 'notBreaching',
          AlarmActions: topicActionOf(template),
        }),
      ]);
      expect(alarms[0]?.['AlarmDescription'], stack.stackName).toContain(`${DETECTION_BOUND_MS / 1_000} s detection bound`);
      expect(alarms[0]?.['AlarmDescription'], stack.stackName).toContain(`${SWEEP_ENTRIES_WITHIN_BOUND} a minute`);
    }
  });

  it('a wake-up the timer queue runs later than the bound leaves for delivery: its consumer’s lateness, not the queue’s oldest-message age, which counts the delay', () => {
    for (const stack of stacksOf(byDefault)) {
      const template = byDefault.template(stack);
      const alarm = resourceOf(template, stack.operations.wakeUpLatenessAlarm).Properties;
      expect(alarm, stack.stackName).toMatchObject({
        Namespace: 'Vigil',
        MetricName: WAKE_UP_LATENESS_METRIC,
        // The dimensions the consumer emits it with (timer-queue-handler.test.ts), in CloudFormation's order.
        Dimensions: [
          { Name: 'function_name', Value: { Ref: logicalId(decidersOf(stack).timerConsumer.handler) } },
          { Name: 'service', Value: serviceOf(stack) },
        ],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        ComparisonOperator: 'GreaterThanThreshold',
        // The stated bound less what it allows to run the decision: 65 s with today's constants.
        Threshold: DETECTION_BOUND_MS - DELIVERY_SLACK_MS,
        AlarmActions: topicActionOf(template),
      });
      expect(alarm?.['AlarmDescription'], stack.stackName).toContain(`${(DETECTION_BOUND_MS - DELIVERY_SLACK_MS) / 1_000} s late`);
      const alarmedQueueAges = Object.values(resourcesOfType(template, 'AWS::CloudWatch::Alarm')).filter((a) => a.Properties?.['MetricName'] === 'ApproximateAgeOfOldestMessage');
      expect(alarmedQueueAges, stack.stackName).toEqual([]);
    }
  });

  it('state table throttling in 2 of 3 minutes: its writes, each index’s writes, and the reads of the table and of the timers index the sweep queries', () => {
    for (const stack of stacksOf(byDefault)) {
      const template = byDefault.template(stack);
      const alarm = resourceOf(template, stack.operations.stateTableThrottlesAlarm).Properties ?? {};
      expect(alarm, stack.stackName).toMatchObject({
        Threshold: 1,
        EvaluationPeriods: 3,
        DatapointsToAlarm: 2,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: topicActionOf(template),
      });
      const metrics = alarm['Metrics'] as { Expression?: string; MetricStat?: { Metric: { MetricName: string; Dimensions: { Name: string; Value: unknown }[] }; Period: number; Stat: string } }[];
      expect(metrics.filter((m) => m.Expression).map((m) => m.Expression), stack.stackName).toEqual(['SUM(FILL(METRICS(), 0))']);
      const tableRef = refOf({ Ref: logicalId(stack.table) });
      const watched = metrics.flatMap((m) => {
        if (!m.MetricStat) return [];
        const { Metric: metric, Period, Stat } = m.MetricStat;
        expect([Period, Stat, refOf(metric.Dimensions.find((d) => d.Name === 'TableName')?.Value)], stack.stackName).toEqual([60, 'Sum', tableRef]);
        return [`${metric.MetricName} ${String(metric.Dimensions.find((d) => d.Name === 'GlobalSecondaryIndexName')?.Value ?? 'table')}`];
      });
      const indexes = (resourceOf(template, stack.table).Properties?.['GlobalSecondaryIndexes'] as { IndexName: string }[]).map((index) => index.IndexName);
      expect(watched.sort(), stack.stackName).toEqual(
        ['ReadThrottleEvents table', 'ReadThrottleEvents timers', 'WriteThrottleEvents table', ...indexes.map((name) => `WriteThrottleEvents ${name}`)].sort(),
      );
    }
  });

  it('the dashboard graphs the wake-up lateness against the bound and the table’s throttles', () => {
    for (const stack of stacksOf(byDefault)) {
      const body = JSON.stringify(resourceOf(byDefault.template(stack), stack.operations.dashboard).Properties?.['DashboardBody']);
      for (const shown of ['Wake-up lateness (timer queue)', WAKE_UP_LATENESS_METRIC, String(DETECTION_BOUND_MS - DELIVERY_SLACK_MS), 'Table throttles', 'WriteThrottleEvents', 'ReadThrottleEvents']) {
        expect(body, stack.stackName).toContain(shown);
      }
    }
  });
});
