import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpListener } from '../../shared/local/http-listener.js';
import { managerRoutes } from '../../shared/local/manager-routes.js';
import { REGION } from '../support/fixtures.js';
import { rawRequest } from '../support/raw-request.js';
import { useHttpTestManager } from './support/test-manager.js';

/**
 * A review finding (bad input accepted): ids are "1–128 characters of [A-Za-z0-9._:-]" (contract), so `.` and
 * `..` pass the schema. But they are dot segments of a URL path: the listener (WHATWG URL, as any
 * HTTP client and proxy) removes them, encoded (`%2E%2E`) or not, so `/jobs/..` is `/`. A job
 * submitted with jobId `..` (or a workflow `.`) is answered 201 with tokens, yet no route can ever
 * reach it: GET, cancel and every progress call answer 404 route_not_found, and the job times out
 * although its worker reports.
 *
 * Now an id a path cannot carry is refused at submit (400 invalid_request naming the field,
 * nothing stored).
 */
describe('ids that are URL dot segments (local listener over dynalite)', () => {
  const m = useHttpTestManager();
  let url = '';
  let server: Server;
  beforeAll(async () => {
    ({ url, server } = await startHttpListener({ name: REGION, port: 0, routes: managerRoutes }));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
    rawRequest(url + path, {
      method,
      headers: { host: new URL(url).host, 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  it.each(['..', '.'])('POST /jobs with jobId %j → 400 naming jobId, nothing stored', async (jobId) => {
    // Act
    const submitted = await send('POST', '/jobs', { jobId, timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // Assess
    expect(submitted.status).toBe(400);
    expect(submitted.body).toContain('jobId');
    expect(submitted.body).toContain('a URL path cannot carry them');
    expect(await m.snapshot()).toEqual([]);
  });

  it('a workflow "." → 400; ids that only contain dots ("...", "a..b") are ordinary and reachable', async () => {
    // Act
    const dot = await send('POST', '/jobs', { jobId: 'job-dot', timeoutSeconds: 60, workflows: [{ workflowId: '.', workerId: 'worker-a' }] });
    const dotty = await send('POST', '/jobs', { jobId: '...', timeoutSeconds: 60, workflows: [{ workflowId: 'a..b', workerId: 'worker-a' }] });
    const token = (JSON.parse(dotty.body) as { workflows: Array<{ token: string }> }).workflows[0]?.token ?? '';
    const progress = await send('POST', '/jobs/.../workflows/a..b/progress', { workerId: 'worker-a', progress: 0.5 }, { 'x-vigil-token': token });
    const read = await send('GET', '/jobs/...');
    // Assess
    expect(dot.status).toBe(400);
    expect(dot.body).toContain('workflows.0.workflowId');
    expect([dotty.status, progress.status, read.status]).toEqual([201, 200, 200]);
    expect((JSON.parse(read.body) as { jobId?: string }).jobId).toBe('...');
  });
});
