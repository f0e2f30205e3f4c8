import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface LocalDynamo {
  endpoint: string;
  client: DynamoDBClient;
  doc: DynamoDBDocumentClient;
  close(): Promise<void>;
}

/**
 * A real DynamoDB API (dynalite) on loopback, persisted under `dataDir` when given,
 * reached through the real AWS SDK exactly as Lambda reaches DynamoDB.
 */
export async function startLocalDynamo(dataDir?: string, region = 'us-east-1'): Promise<LocalDynamo> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const server = dynalite({ ...(dataDir ? { path: dataDir } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({
    endpoint,
    region,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 5,
  });
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    endpoint,
    client,
    doc,
    close: () =>
      new Promise<void>((resolve) => {
        client.destroy();
        server.close(() => resolve());
      }),
  };
}
