import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Server } from 'node:http';
import { startHttpListener } from '../../../shared/local/http-listener.js';
import type { Route } from '../../../shared/local/http-routes.js';

/**
 * Workers judge Vigil's deadlines on Vigil's clock, which they learn from each answer's `Date` header
 * (shared/sdk/vigil-clock.ts): the local cloud's must read its own clock, the virtual one too, not the
 * system clock Node would put there.
 */
describe('local HTTP listener: the Date header reads the local cloud’s clock', () => {
  const virtualNow = Date.parse('2030-06-01T08:00:00.000Z');
  let url = '';
  let server: Server | undefined;
  const routes: Route[] = [
    {
      method: 'GET',
      path: '/jobs/{jobId}',
      doc: { summary: 'A job', auth: 'public', answers: { 200: { description: 'The job' } } },
      handler: async () => async () => ({ statusCode: 200, body: '{}' }),
    },
  ];

  beforeAll(async () => ({ url, server } = await startHttpListener({ name: 'eu-west-1', port: 0, routes, now: () => virtualNow })));
  afterAll(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  it('an API answer carries the clock’s time', async () => {
    // Act
    const answer = await fetch(`${url}/jobs/job-1`);
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('date')).toBe('Sat, 01 Jun 2030 08:00:00 GMT');
  });

  it('a refusal (an unknown route) carries it too', async () => {
    // Act
    const answer = await fetch(`${url}/nowhere`);
    // Assess
    expect(answer.status).toBe(404);
    expect(answer.headers.get('date')).toBe('Sat, 01 Jun 2030 08:00:00 GMT');
  });
});
