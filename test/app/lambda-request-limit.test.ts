import { request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpListener } from '../../shared/local/http-listener.js';
import type { Route } from '../../shared/local/http-routes.js';
import { LAMBDA_REQUEST_BYTES } from '../../shared/local/lambda-request-limit.js';

function post(url: string, body: string, contentType: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { 'content-type': contentType } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

let handled = 0;
/** A route whose handler only counts the requests that reach it, as a function on AWS would be invoked. */
const counting: Route = {
  method: 'POST',
  path: '/pools',
  doc: { summary: 'counts', auth: 'iam', answers: {} },
  handler: async () => async () => (handled++, { statusCode: 201, body: '{}' }),
};

let listener: { url: string; server: Server };
beforeAll(async () => {
  listener = await startHttpListener({ name: 'us-east-1', port: 0, routes: [counting] });
});
afterAll(() => new Promise((resolve) => listener.server.close(resolve)));

/**
 * Scenario: a body under 6 MiB whose event is not. On AWS, Lambda takes at most 6 MiB of request,
 * and that is the whole event API Gateway builds: a YAML pool (`application/yaml`, handed over
 * base64-encoded, a third larger) of 5 MiB is 6.7 MiB there and never reaches the function. The
 * local cloud measured the body alone, so it accepted what a deployed Vigil refuses.
 *
 * Correct behaviour: the local cloud refuses with 413 `payload_too_large` exactly the requests whose
 * event would be past Lambda's limit, and says how to fix it.
 */
describe("the local cloud's request limit is Lambda's, on the event as API Gateway builds it", () => {
  it('a 5 MiB YAML body (6.7 MiB as base64) is 413 payload_too_large, and no handler runs', async () => {
    // Prepare
    const before = handled;
    const yaml = `items:\n${'  - itemId: x\n'.repeat(Math.ceil((5 * 1024 * 1024) / 14))}`;
    // Act
    const answer = await post(`${listener.url}/pools`, yaml, 'application/yaml');
    // Assess
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toEqual({ error: { code: 'payload_too_large', message: expect.stringContaining('as application/json') } });
    expect(handled).toBe(before);
  });

  it('the same size as JSON text (its event a little over the body) reaches the handler', async () => {
    // Prepare
    const before = handled;
    const json = JSON.stringify({ items: 'x'.repeat(5 * 1024 * 1024) });
    // Act
    const answer = await post(`${listener.url}/pools`, json, 'application/json');
    // Assess
    expect(answer.status).toBe(201);
    expect(handled).toBe(before + 1);
  });

  it('a JSON body just under 6 MiB whose escaping takes the event past the limit is refused', async () => {
    // Prepare: 3 bytes an element (`"",`), 5 in the event once its quotes are escaped: 0.75 of the limit, then 1.25
    const before = handled;
    const json = JSON.stringify({ items: Array.from({ length: Math.floor(LAMBDA_REQUEST_BYTES / 4) }, () => '') });
    // Act
    const answer = await post(`${listener.url}/pools`, json, 'application/json');
    // Assess
    expect(Buffer.byteLength(json)).toBeLessThan(LAMBDA_REQUEST_BYTES);
    expect(answer.status).toBe(413);
    expect(handled).toBe(before);
  });
});
