import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * Every call has a time limit. Without one a black-holed endpoint (a regional outage that drops
 * packets) never answers, and a handler waits for it until Lambda kills it: the sweep, firing 8
 * at a time, is then stuck on the same entries every minute (review finding F4). The SDK's own
 * retries (3 attempts, jittered back-off) stand after each cut, so a call gives up after about
 * 3 × its limit, inside the sweep's per-fire limit (`SWEEP_FIRE_LIMIT_MS`, 8 s) when one call hangs.
 *
 * `requestTimeout` alone only logs a warning in this SDK: `throwOnRequestTimeout` makes it an error.
 * The options are the client's `requestHandler` as data: the SDK builds its NodeHttpHandler from
 * them, so no handler package is imported here (each client's config type checks the fields).
 */
const within = (connectionTimeout: number, requestTimeout: number) => ({
  requestHandler: { connectionTimeout, requestTimeout, throwOnRequestTimeout: true },
});

/**
 * 1 s to connect (a TLS handshake in-region takes tens of ms; a cold start's first one a few
 * hundred). 2 s per request: DynamoDB answers single-item writes and 1 MB query pages in tens of ms,
 * EventBridge PutEvents (10 entries) and SQS SendMessage likewise; 2 s is a hang, not load.
 */
const CONNECT_MS = 1_000;
const REQUEST_MS = 2_000;
/** Scheduler's CreateSchedule is slower at the tail (a control-plane API) and only arms wake-ups past 15 min: 3 s. */
const SCHEDULER_REQUEST_MS = 3_000;
/** Read once per cold start (the token secret): a slow first call costs one cold start, a hang costs every call behind it. 3 s. */
const SECRETS_REQUEST_MS = 3_000;

/** SDK clients, created once per Lambda process. They honour AWS_ENDPOINT_URL (LocalStack). */
const dynamo = new DynamoDBClient(within(CONNECT_MS, REQUEST_MS));
export const awsClients = {
  doc: DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } }),
  sqs: new SQSClient(within(CONNECT_MS, REQUEST_MS)),
  scheduler: new SchedulerClient(within(CONNECT_MS, SCHEDULER_REQUEST_MS)),
  events: new EventBridgeClient(within(CONNECT_MS, REQUEST_MS)),
  secrets: new SecretsManagerClient(within(CONNECT_MS, SECRETS_REQUEST_MS)),
};

/** The limits, for tests. */
export const AWS_CLIENT_TIME_LIMITS = { connectMs: CONNECT_MS, requestMs: REQUEST_MS, schedulerRequestMs: SCHEDULER_REQUEST_MS, secretsRequestMs: SECRETS_REQUEST_MS };
