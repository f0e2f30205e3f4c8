/**
 * us-east-1 list prices in USD, as published on the AWS pricing pages and by Temporal, written down
 * on 2026-11-26 (the date this table was last checked against them; re-check before quoting).
 * Sources:
 * - Lambda: https://aws.amazon.com/lambda/pricing/ (Arm, the architecture Vigil deploys)
 * - DynamoDB on-demand: https://aws.amazon.com/dynamodb/pricing/on-demand/
 * - SQS standard queues: https://aws.amazon.com/sqs/pricing/
 * - EventBridge custom events, cross-Region delivery, Scheduler: https://aws.amazon.com/eventbridge/pricing/
 * - API Gateway HTTP APIs (first 300 M/month): https://aws.amazon.com/api-gateway/pricing/
 * - CloudWatch Logs ingestion (standard class), X-Ray traces recorded: https://aws.amazon.com/cloudwatch/pricing/, https://aws.amazon.com/xray/pricing/
 * - Step Functions Standard: https://aws.amazon.com/step-functions/pricing/
 * - Temporal Cloud actions (pay-as-you-go, first tier): https://temporal.io/pricing
 * Free tiers are left out: they do not change the per-job comparison at scale.
 */
export const PRICES = {
  asOf: '2026-11-26',
  region: 'us-east-1',
  lambdaPerRequest: 0.2 / 1e6,
  lambdaPerGbSecondArm: 0.0000133334,
  dynamoPerWriteUnit: 0.625 / 1e6,
  dynamoPerReadUnit: 0.125 / 1e6,
  sqsPerRequest: 0.4 / 1e6,
  eventBridgePerEvent: 1.0 / 1e6,
  /** An event a rule forwards to another bus, in another Region or the same one, is billed again there as an event. */
  eventBridgePerForwardedEvent: 1.0 / 1e6,
  schedulerPerInvocation: 1.0 / 1e6,
  apiGatewayHttpPerRequest: 1.0 / 1e6,
  cloudWatchLogsPerGb: 0.5,
  xRayPerTrace: 5.0 / 1e6,
  stepFunctionsStandardPerTransition: 0.025 / 1e3,
  temporalCloudPerAction: 50 / 1e6,
} as const;

/** What a Vigil function is deployed with (infra/constructs/vigil-function.ts) and its assumed average billed duration. */
export const LAMBDA_MEMORY_GB = 0.5;
export const LAMBDA_AVERAGE_MS = 40;

/**
 * What the deployed stack logs and traces. Functions log JSON lines; Lambda keeps its own START and
 * REPORT records (about 150 and 300 bytes as JSON, and CloudWatch bills 26 more a log event) only
 * with `-c systemLogLevel=INFO`. Vigil's own lines, counted by the simulator, are Powertools lines:
 * about 500 bytes with the Lambda context (a test holds a real one under the figure). One JSON
 * access-log line per API Gateway request (function URLs write none). X-Ray only with context
 * `tracing`: Lambda then traces 5 % of invocations past a reservoir of one a second, which is left
 * out, so this is a floor (at scale the reservoir is a small share; at a few jobs an hour it traces
 * nearly all).
 */
export const PLATFORM_LOG_BYTES_PER_INVOCATION = 500;
export const APP_LOG_BYTES_PER_LINE = 600;
export const ACCESS_LOG_BYTES_PER_REQUEST = 400;
export const XRAY_TRACED_SHARE = 0.05;

export type StackKind = 'region' | 'gate';

/**
 * The alarm metrics each stack deploys, at $0.10 a month each (one per alarm, one per metric in a
 * metric-math alarm): test/infra/alarm-notifications.test.ts holds these to the synthesized templates.
 */
export const ALARM_METRICS_PER_STACK: Readonly<Record<StackKind, number>> = { region: 42, gate: 28 };

/**
 * The custom metric streams (name and dimensions) a busy stack reports every hour, at $0.30 a month
 * each, prorated by the hour: jobs finished and timed out, extensions granted and denied, wake-ups
 * dropped by reason, stale messages, the wake-up lateness, the agents' starts, completions and
 * timeouts; the gate's declarations, drops and lateness. The rare ones (refused events, a sweep's
 * leftovers or late fires, a failed disarm) report only in the hours they happen and cost next to
 * nothing. An estimate.
 */
export const ACTIVE_CUSTOM_METRICS_PER_STACK: Readonly<Record<StackKind, number>> = { region: 12, gate: 5 };

/**
 * What each deployed stack costs a month however few jobs run: its alarms and custom metrics (above),
 * a dashboard past the free three ($3), its key secret ($0.40: a region's token secret, the gate's
 * page-cursor key), the alarm topic's KMS key ($1) and the timer queue's idle long polling (about
 * $0.25). The sweep is measured apart.
 */
export const fixedUsdPerStackMonth = (kind: StackKind): number =>
  ALARM_METRICS_PER_STACK[kind] * 0.1 + ACTIVE_CUSTOM_METRICS_PER_STACK[kind] * 0.3 + 3 + 0.4 + 1 + 0.25;
export const HOURS_PER_MONTH = 730;
