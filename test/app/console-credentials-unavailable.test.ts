import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { signedForwarder } from '../../shared/console/signed-forwarder.js';

/*
 * With no usable AWS credentials (none set, an SSO session expired) every call of a deployed
 * console's page was answered "us-east-1 did not answer (Error: …). Check that it runs and the
 * endpoint is right": the call was never sent, and the operator was sent to look at the API and
 * the endpoint instead of at their credentials.
 */
describe('vigil console without AWS credentials', () => {
  let consoleServer: Awaited<ReturnType<typeof startConsoleServer>>;
  const reached: string[] = [];
  const api = createServer((request, response) => {
    reached.push(request.url ?? '');
    response.end('{}');
  });
  beforeAll(async () => {
    await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', () => resolve()));
    consoleServer = await startConsoleServer({
      targets: { regions: { 'us-east-1': `http://127.0.0.1:${(api.address() as AddressInfo).port}` } },
      port: 0,
      sign: true,
      forward: signedForwarder({
        fallbackRegion: 'us-east-1',
        credentials: async () => {
          throw new Error('Token is expired. To refresh this SSO session run aws sso login');
        },
      }),
    });
  });
  afterAll(async () => {
    await consoleServer.close();
    await new Promise((resolve) => api.close(resolve));
  });

  it('answers that the call could not be signed, with the cause and what to do, and sends nothing', async () => {
    // Act
    const answer = await fetch(`${consoleServer.url}/console/api/us-east-1/jobs`, { headers: { 'x-vigil-console-key': consoleServer.key } });
    // Assess
    const { error } = (await answer.json()) as { error: { code: string; message: string } };
    expect(answer.status).toBe(502);
    expect(error.code).toBe('credentials_unavailable');
    expect(error.message).toContain('aws sso login');
    expect(error.message).toMatch(/AWS credentials/);
    expect(error.message).not.toContain('did not answer');
    expect(reached).toEqual([]);
  });
});
