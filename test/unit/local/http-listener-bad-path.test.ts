import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { startHttpListener } from '../../../shared/local/http-listener.js';
import type { Route } from '../../../shared/local/http-routes.js';

/** A path the local cloud cannot percent-decode is the caller's mistake (400), not a 500. */
describe('local HTTP listener: malformed paths', () => {
  let url = '';
  let server: Server | undefined;
  const calls: string[] = [];
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/jobs/{jobId}',
      doc: { summary: 'A job', auth: 'public', answers: { 200: { description: 'The job' } } },
      handler: async () => async (event) => {
        calls.push(event.pathParameters?.['jobId'] ?? '');
        return { statusCode: 200, body: '{}' };
      },
    },
  ];

  beforeAll(async () => ({ url, server } = await startHttpListener({ name: 'eu-west-1', port: 0, routes })));
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('a path parameter with a broken percent-escape → 400 invalid_request that says how to fix it; no handler runs', async () => {
    // Act
    const answer = await fetch(`${url}/jobs/job%E0%A4%A`);
    const body = (await answer.json()) as { error: { code: string; message: string } };

    // Assess
    expect(answer.status).toBe(400);
    expect(body.error.code).toBe('invalid_request');
    expect(body.error.message).toMatch(/percent-encod/);
    expect(calls).toEqual([]);
  });

  it('a well-formed escape still reaches the handler decoded', async () => {
    // Act
    const answer = await fetch(`${url}/jobs/job%3A1`);

    // Assess
    expect(answer.status).toBe(200);
    expect(calls).toEqual(['job:1']);
  });

  it('an unknown route names no file outside the project', async () => {
    // Act
    const answer = await fetch(`${url}/nowhere`);
    const body = (await answer.json()) as { error: { code: string; message: string } };

    // Assess
    expect(answer.status).toBe(404);
    expect(body.error.message).not.toMatch(/contract\.md/);
    expect(body.error.message).toMatch(/docs\/api\.md/);
  });

  it('a body over 6 MiB sent whole before the answer is read → 413 payload_too_large, not a reset connection', async () => {
    // Act: fetch sends the 7 MiB body first, then reads the answer (as Schemathesis' client does)
    const answer = await fetch(`${url}/jobs/job-1`, { method: 'POST', body: 'x'.repeat(7 * 1024 * 1024) });
    const body = (await answer.json()) as { error: { code: string } };

    // Assess
    expect(answer.status).toBe(413);
    expect(body.error.code).toBe('payload_too_large');
    expect(calls).not.toContain('job-1');
  });
});
