import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { RequestNotSignedError, VigilHttp, VigilUnreachableError } from '../../shared/sdk/index.js';

/**
 * Proves that a call the signer cannot sign (no AWS credentials, an expired SSO session) fails at
 * once with what the signer said. It was retried as a network failure: five tries, seconds of
 * back-off, then "Vigil did not answer … Is it running?", which sent the user after Vigil when
 * the fix was their own credentials.
 */
describe('a call whose signer fails', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });

  it('is refused at once, not retried, and nothing is sent', async () => {
    // Prepare: a Vigil that counts what reaches it, and a signer without credentials
    let received = 0;
    const server = createServer((request, response) => (received++, response.end('{}')));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    let signings = 0;
    const http = new VigilHttp({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      signer: async () => {
        signings++;
        throw new Error('Could not load credentials from any providers');
      },
    });
    // Act
    const outcome = await http.call('GET', '/jobs/job-1').then(() => undefined, (error: unknown) => error);
    // Assess
    expect(outcome).toBeInstanceOf(RequestNotSignedError);
    expect(outcome).not.toBeInstanceOf(VigilUnreachableError);
    expect((outcome as Error).message).toContain('GET /jobs/job-1 was not sent');
    expect((outcome as Error).message).toContain('Could not load credentials from any providers');
    expect(signings).toBe(1);
    expect(received).toBe(0);
  });

  it("a worker's call (it carries its token) is not signed: it goes out without AWS credentials", async () => {
    // Prepare: worker routes have no IAM authorizer; a worker machine may have no credentials at all
    const authorizations: Array<string | undefined> = [];
    const server = createServer((request, response) => (authorizations.push(request.headers.authorization), response.end('{}')));
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const http = new VigilHttp({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      signer: async () => {
        throw new Error('Could not load credentials from any providers');
      },
    });
    // Act
    const answer = await http.call('POST', '/jobs/job-1/workflows/wf-1/progress', { body: { workerId: 'w-1' }, token: 'a-token' });
    // Assess
    expect(answer.status).toBe(200);
    expect(authorizations).toEqual([undefined]);
  });
});
