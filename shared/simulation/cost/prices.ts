/**
 * us-east-1 list prices in USD, as published on the AWS pricing pages and by Temporal, written down
 * on 2026-11-26 (the date this table was last checked against them; re-check before quoting).
 * Sources:
 * - Lambda: https://aws.amazon.com/lambda/pricing/ (Arm, the architecture Vigil deploys)
 * - DynamoDB on-demand: https://aws.amazon.com/dynamodb/pricing/on-demand/
 * - SQS standard queues: https://aws.amazon.com/sqs/pricing/
 * - EventBridge custom events, cross-Region delivery, Scheduler: https://aws.amazon.com/eventbridge/pricing/
 * - API Gateway HTTP APIs (first 300 M/month): https://aws.amazon.com/api-gateway/pricing/
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
  /** An event forwarded to another Region's bus is billed again there as an event. */
  eventBridgePerCrossRegionEvent: 1.0 / 1e6,
  schedulerPerInvocation: 1.0 / 1e6,
  apiGatewayHttpPerRequest: 1.0 / 1e6,
  stepFunctionsStandardPerTransition: 0.025 / 1e3,
  temporalCloudPerAction: 50 / 1e6,
} as const;

/** What a Vigil function is deployed with (infra/constructs/vigil-function.ts) and its assumed average billed duration. */
export const LAMBDA_MEMORY_GB = 0.5;
export const LAMBDA_AVERAGE_MS = 40;
