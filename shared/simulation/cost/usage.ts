import {
  ACCESS_LOG_BYTES_PER_REQUEST,
  APP_LOG_BYTES_PER_LINE,
  LAMBDA_AVERAGE_MS,
  LAMBDA_MEMORY_GB,
  PLATFORM_LOG_BYTES_PER_INVOCATION,
  PRICES,
  XRAY_TRACED_SHARE,
} from './prices.js';

/** AWS usage by kind, the unit the cost model prices. */
export interface Usage {
  lambdaInvocations: number;
  dynamoWriteUnits: number;
  /** Of `dynamoWriteUnits`, the views for people (decision history, jobs list): shown, not priced apart. */
  dynamoViewWriteUnits: number;
  dynamoReadUnits: number;
  sqsRequests: number;
  schedulerInvocations: number;
  eventBridgeEvents: number;
  /** Events a bus rule forwarded to another bus (the gate's or a region's), billed again there. */
  forwardedEvents: number;
  apiRequestsWorker: number;
  apiRequestsClient: number;
  /** Lines the handlers logged (Powertools log and metric lines). */
  appLogLines: number;
}

export const NO_USAGE: Usage = {
  lambdaInvocations: 0,
  dynamoWriteUnits: 0,
  dynamoViewWriteUnits: 0,
  dynamoReadUnits: 0,
  sqsRequests: 0,
  schedulerInvocations: 0,
  eventBridgeEvents: 0,
  forwardedEvents: 0,
  apiRequestsWorker: 0,
  apiRequestsClient: 0,
  appLogLines: 0,
};

export function combine(a: Usage, b: Usage, factor = 1): Usage {
  const out = { ...a };
  for (const key of Object.keys(out) as Array<keyof Usage>) out[key] = a[key] + b[key] * factor;
  return out;
}

export const scale = (usage: Usage, factor: number): Usage => combine(NO_USAGE, usage, factor);

export interface CostBreakdown {
  lambda: number;
  dynamoWrites: number;
  dynamoReads: number;
  sqs: number;
  scheduler: number;
  eventBridge: number;
  apiGateway: number;
  /** CloudWatch Logs ingestion and X-Ray traces (prices.ts states what is assumed). */
  observability: number;
  total: number;
}

/** The deploy options that change the bill: the CDK context of the same names (README "Configuration"). */
export interface DeployProfile {
  /** Active X-Ray tracing on every function. */
  readonly tracing?: boolean;
  /** Workers and agents call the function URL: no API Gateway request, no access-log line. */
  readonly workerFunctionUrl?: boolean;
  /** Lambda's START and REPORT records kept for every invocation (`systemLogLevel` INFO, or DEBUG at least). */
  readonly platformLogs?: boolean;
}

/** USD for a usage, with the stack deployed as `profile` says (by default as `cdk.json` deploys it). */
export function priceOf(usage: Usage, profile: DeployProfile = {}): CostBreakdown {
  const gbSeconds = usage.lambdaInvocations * (LAMBDA_AVERAGE_MS / 1000) * LAMBDA_MEMORY_GB;
  const apiRequests = usage.apiRequestsClient + (profile.workerFunctionUrl ? 0 : usage.apiRequestsWorker);
  const parts = {
    lambda: usage.lambdaInvocations * PRICES.lambdaPerRequest + gbSeconds * PRICES.lambdaPerGbSecondArm,
    dynamoWrites: usage.dynamoWriteUnits * PRICES.dynamoPerWriteUnit,
    dynamoReads: usage.dynamoReadUnits * PRICES.dynamoPerReadUnit,
    sqs: usage.sqsRequests * PRICES.sqsPerRequest,
    scheduler: usage.schedulerInvocations * PRICES.schedulerPerInvocation,
    eventBridge: usage.eventBridgeEvents * PRICES.eventBridgePerEvent + usage.forwardedEvents * PRICES.eventBridgePerForwardedEvent,
    apiGateway: apiRequests * PRICES.apiGatewayHttpPerRequest,
    observability:
      (logBytes(usage, apiRequests, profile) / 1e9) * PRICES.cloudWatchLogsPerGb +
      (profile.tracing ? usage.lambdaInvocations * XRAY_TRACED_SHARE * PRICES.xRayPerTrace : 0),
  };
  return { ...parts, total: Object.values(parts).reduce((a, b) => a + b, 0) };
}

function logBytes(usage: Usage, apiRequests: number, profile: DeployProfile): number {
  const platform = profile.platformLogs ? usage.lambdaInvocations * PLATFORM_LOG_BYTES_PER_INVOCATION : 0;
  return usage.appLogLines * APP_LOG_BYTES_PER_LINE + platform + apiRequests * ACCESS_LOG_BYTES_PER_REQUEST;
}
