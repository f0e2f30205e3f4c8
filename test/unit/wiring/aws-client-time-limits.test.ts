import { createServer, type Server, type Socket } from 'node:net';
import { PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

/**
 * Review finding F4: `new EventBridgeClient({})` had no time limit, so a black-holed endpoint held a
 * publish (and the sweep behind it) until Lambda killed it. Every client now cuts a connection at
 * 1 s and a request at 2–3 s, as an error (`throwOnRequestTimeout`: without it the SDK only warns).
 */
describe('the SDK clients give up on an endpoint that never answers', () => {
  const sockets: Socket[] = [];
  let server: Server;
  let clients: typeof import('../../../shared/wiring/aws-clients.js');

  beforeAll(async () => {
    // An endpoint that accepts connections and never answers (a black hole past the handshake).
    server = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no port');
    vi.stubEnv('AWS_REGION', 'eu-west-1');
    vi.stubEnv('AWS_ACCESS_KEY_ID', 'test');
    vi.stubEnv('AWS_SECRET_ACCESS_KEY', 'test');
    vi.stubEnv('AWS_ENDPOINT_URL', `http://127.0.0.1:${address.port}`);
    // One attempt: the limit of one call, not the SDK's retries of it.
    vi.stubEnv('AWS_MAX_ATTEMPTS', '1');
    vi.resetModules();
    clients = await import('../../../shared/wiring/aws-clients.js');
  });
  afterAll(async () => {
    vi.unstubAllEnvs();
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('every client is built with a connection and a request limit that throws', async () => {
    // Prepare
    const { awsClients, AWS_CLIENT_TIME_LIMITS: limits } = clients;
    const handlerConfig = async (client: { config: { requestHandler: unknown } }) => {
      const handler = client.config.requestHandler as { configProvider?: Promise<Record<string, unknown>> };
      return handler.configProvider ? await handler.configProvider : {};
    };
    // Act
    const configs = {
      dynamodb: await handlerConfig(awsClients.doc),
      sqs: await handlerConfig(awsClients.sqs),
      scheduler: await handlerConfig(awsClients.scheduler),
      events: await handlerConfig(awsClients.events),
      secrets: await handlerConfig(awsClients.secrets),
    };
    // Assess
    const limited = (requestTimeout: number) => expect.objectContaining({ connectionTimeout: limits.connectMs, requestTimeout, throwOnRequestTimeout: true });
    expect(configs).toEqual({
      dynamodb: limited(limits.requestMs),
      sqs: limited(limits.requestMs),
      scheduler: limited(limits.schedulerRequestMs),
      events: limited(limits.requestMs),
      secrets: limited(limits.secretsRequestMs),
    });
  });

  it('a PutEvents to an endpoint that never answers fails with a time-out within its request limit', async () => {
    // Act
    const startedMs = performance.now();
    const outcome = await clients.awsClients.events
      .send(new PutEventsCommand({ Entries: [{ Source: 'vigil', DetailType: 'Probe', Detail: '{}', EventBusName: 'bus' }] }))
      .then(() => 'answered', (error: unknown) => (error instanceof Error ? error.name : String(error)));
    const tookMs = performance.now() - startedMs;
    // Assess
    expect(outcome).toBe('TimeoutError');
    expect(tookMs).toBeLessThan(clients.AWS_CLIENT_TIME_LIMITS.requestMs + 1_500);
  }, 10_000);
});
