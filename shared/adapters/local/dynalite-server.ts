import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
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

export interface LocalDynamoOptions {
  /**
   * Serve dynalite from a worker thread: its request parsing, expression evaluation and LevelDB
   * calls (a third of a busy local cloud's CPU profile) then run beside the handlers instead of on
   * their event loop. The local cloud does; tests keep it in-process (cheaper to start).
   */
  thread?: boolean;
}

/**
 * A real DynamoDB API (dynalite) on loopback, persisted under `dataDir` when given,
 * reached through the real AWS SDK exactly as Lambda reaches DynamoDB. Its indexes are written as
 * DynamoDB writes them, only where an entry changes (`dynalite-index-upkeep.cjs`); a table a killed
 * process left CREATING is finished when the data dir is opened (`dynalite-interrupted-create.cjs`).
 */
export async function startLocalDynamo(dataDir?: string, region = 'us-east-1', options: LocalDynamoOptions = {}): Promise<LocalDynamo> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const dynaliteOptions = { ...(dataDir ? { path: dataDir } : {}), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 };
  const server = options.thread ? await serveInThread(dynaliteOptions) : await serveHere(dynaliteOptions);
  const endpoint = `http://127.0.0.1:${server.port}`;
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
      await server.close();
    },
  };
}

interface Served {
  port: number;
  close(): Promise<void>;
}

type DynaliteOptions = Parameters<typeof dynalite>[0];

const localRequire = createRequire(import.meta.url);
const DYNALITE_PATH = localRequire.resolve('dynalite');
const UPKEEP_PATH = localRequire.resolve('./dynalite-index-upkeep.cjs');
const RECOVERY_PATH = localRequire.resolve('./dynalite-interrupted-create.cjs');

async function serveHere(options: DynaliteOptions): Promise<Served> {
  (localRequire(UPKEEP_PATH) as { installIndexUpkeep(dynalitePath: string): void }).installIndexUpkeep(DYNALITE_PATH);
  (localRequire(RECOVERY_PATH) as { installInterruptedCreateRecovery(dynalitePath: string): void }).installInterruptedCreateRecovery(DYNALITE_PATH);
  const server = dynalite(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return { port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/**
 * The worker's code as plain CommonJS (run with `eval`), so it needs no TypeScript loader in the
 * thread; dynalite is required by the path this module resolves.
 */
const THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
require(workerData.upkeepPath).installIndexUpkeep(workerData.dynalitePath);
require(workerData.recoveryPath).installInterruptedCreateRecovery(workerData.dynalitePath);
const server = require(workerData.dynalitePath)(workerData.options);
server.once('error', (error) => parentPort.postMessage({ error: String(error) }));
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', () => server.close(() => parentPort.postMessage({ closed: true })));
`;

async function serveInThread(options: DynaliteOptions): Promise<Served> {
  const worker = new Worker(THREAD_SOURCE, { eval: true, workerData: { dynalitePath: DYNALITE_PATH, upkeepPath: UPKEEP_PATH, recoveryPath: RECOVERY_PATH, options } });
  const next = () =>
    new Promise<{ port?: number; error?: string; closed?: boolean }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  const started = await next();
  if (started.port === undefined) {
    await worker.terminate();
    throw new Error(`dynalite did not start in its thread: ${started.error ?? 'no port'}`);
  }
  return {
    port: started.port,
    close: async () => {
      const closed = next();
      worker.postMessage('close');
      await closed;
      await worker.terminate();
    },
  };
}

const DRAIN_TIMEOUT_MS = 10_000;
