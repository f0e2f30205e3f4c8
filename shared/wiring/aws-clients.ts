import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** SDK clients, created once per Lambda process. They honour AWS_ENDPOINT_URL (LocalStack). */
const dynamo = new DynamoDBClient({});
export const awsClients = {
  doc: DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } }),
  sqs: new SQSClient({}),
  scheduler: new SchedulerClient({}),
  events: new EventBridgeClient({}),
  secrets: new SecretsManagerClient({}),
};
