import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
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
  // dynalite throws uncaught errors when a request is still being served as its database closes,
  // so close() first refuses new calls (they fail like any DynamoDB error) and lets running ones end.
  let inFlight = 0;
  let closing = false;
  client.middlewareStack.add(
    (next) => async (args) => {
      if (closing) throw new Error('The local DynamoDB is shutting down.');
      inFlight++;
      try {
        return await next(args);
      } finally {
        inFlight--;
      }
    },
    { step: 'initialize', name: 'vigilLocalDrain' },
  );
  const doc = DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
  return {
    endpoint,
    client,
    doc,
    close: async () => {
      closing = true;
      for (const giveUpAt = Date.now() + DRAIN_TIMEOUT_MS; inFlight > 0 && Date.now() < giveUpAt; ) await sleep(5);
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const DRAIN_TIMEOUT_MS = 10_000;
