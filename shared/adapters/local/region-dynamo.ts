import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startLocalDynamo, type LocalDynamo } from './dynalite-server.js';

/**
 * A region's DynamoDB in the local cloud: the AWS-compatible endpoint named by
 * `AWS_ENDPOINT_URL_DYNAMODB` or `AWS_ENDPOINT_URL` (LocalStack, moto) when one is set, otherwise
 * dynalite persisted under `dataDir`, served from its own worker thread. Each region is its own namespace at the endpoint.
 */
export async function regionDynamo(dataDir: string, region: string, env: NodeJS.ProcessEnv = process.env): Promise<LocalDynamo> {
  const endpoint = env['AWS_ENDPOINT_URL_DYNAMODB'] ?? env['AWS_ENDPOINT_URL'];
  if (!endpoint) return startLocalDynamo(dataDir, region, { thread: true });
  const hasCredentials = Boolean(env['AWS_ACCESS_KEY_ID'] || env['AWS_PROFILE']);
  const client = new DynamoDBClient({
    endpoint,
    region,
    ...(hasCredentials ? {} : { credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }),
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return { endpoint, client, doc, close: async () => client.destroy() };
}
