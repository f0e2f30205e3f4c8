import { describe, expect, it } from 'vitest';
import { getJob } from '../../shared/app/get-job.js';
import { getJobTokens } from '../../shared/app/get-job-tokens.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { TOKEN_PAGE_SIZE } from '../../shared/app/job-views.js';
import { InvalidRequestError } from '../../shared/domain/errors.js';
import { handler as getJobTokensHandler } from '../../functions/api/get-job-tokens.js';
import { handler as submitJobHandler } from '../../functions/api/submit-job.js';
import { errorOf, invoke } from './support/http-events.js';
import { useHttpTestManager, useTestManager } from './support/test-manager.js';

/** Lambda's limit for a synchronous answer (6 MB); every answer must stay below it. */
const LAMBDA_ANSWER_LIMIT_BYTES = 6 * 1024 * 1024;
const bytesOf = (answer: unknown): number => Buffer.byteLength(JSON.stringify(answer), 'utf8');
const longId = (prefix: string, i: number) => `${prefix}${String(i).padStart(6, '0')}`.padEnd(128, 'x');

/**
 * the 201 for 10,000 workflows with 128-character ids was 6.5 MiB. Tokens are paged:
 * the answer carries the first page and a cursor; `GET /jobs/{id}/tokens?cursor=` returns the rest.
 */
describe('answers fit Lambda at the largest accepted submission (dynalite)', () => {
  const m = useTestManager();
  const workflows = Array.from({ length: 10_000 }, (_, i) => ({ workflowId: longId('wf-', i), workerId: longId('worker-', i) }));

  it('the 201, every tokens page and GET /jobs/{id} stay under 6 MB; the pages hold each workflow\'s token once', async () => {
    // Act
    const { view } = await submitJob(m.deps, { jobId: 'j'.repeat(128), timeoutSeconds: 600, workflows });
    const pages: Array<{ workflows: Array<{ workflowId: string; workerId: string; token: string }>; nextCursor?: string }> = [view];
    for (let cursor = view.nextCursor; cursor !== undefined && pages.length < 20; ) {
      const page = await getJobTokens(m.deps, view.jobId, cursor);
      pages.push(page);
      cursor = page.nextCursor;
    }
    const full = await getJob(m.deps, view.jobId);

    // Assess
    expect(view.workflows).toHaveLength(TOKEN_PAGE_SIZE);
    for (const page of pages) expect(bytesOf(page)).toBeLessThan(LAMBDA_ANSWER_LIMIT_BYTES);
    expect(bytesOf(full)).toBeLessThan(LAMBDA_ANSWER_LIMIT_BYTES);
    const tokens = pages.flatMap((page) => page.workflows);
    expect(tokens.map((w) => w.workflowId).sort()).toEqual(workflows.map((w) => w.workflowId).sort());
    const byId = new Map(workflows.map((w) => [w.workflowId, w.workerId]));
    for (const { workflowId, workerId, token } of tokens) {
      expect(workerId).toBe(byId.get(workflowId));
      await expect(m.deps.tokens.verify(token, workerId, { jobId: view.jobId, workflowId })).resolves.toMatchObject({ workflowId });
    }
    expect(pages.at(-1)?.nextCursor).toBeUndefined();
  }, 120_000);

  it('a small job answers every token at once, in submission order, with no cursor', async () => {
    // Act
    const { view } = await submitJob(m.deps, { jobId: 'job-small', timeoutSeconds: 60, workflows: workflows.slice(0, 3) });

    // Assess
    expect(view.workflows.map((w) => w.workflowId)).toEqual(workflows.slice(0, 3).map((w) => w.workflowId));
    expect(view.nextCursor).toBeUndefined();
  });

  it('a cursor that is not a workflow id → invalid_request', async () => {
    // Prepare
    await submitJob(m.deps, { jobId: 'job-small', timeoutSeconds: 60, workflows: workflows.slice(0, 3) });

    // Act
    const answer = getJobTokens(m.deps, 'job-small', 'not/an id');

    // Assess
    await expect(answer).rejects.toBeInstanceOf(InvalidRequestError);
  });
});

describe('GET /jobs/{jobId}/tokens through its handler (dynalite)', () => {
  useHttpTestManager();
  const workflows = Array.from({ length: TOKEN_PAGE_SIZE + 2 }, (_, i) => ({ workflowId: `wf-${String(i).padStart(5, '0')}`, workerId: 'worker-a' }));

  it('pages with the cursor of the previous answer; a bad cursor → 400 invalid_request', async () => {
    // Prepare
    const submitted = await invoke(submitJobHandler, { method: 'POST', route: '/jobs', body: { jobId: 'job-1', timeoutSeconds: 60, workflows } });
    const cursor = String(submitted.body['nextCursor']);

    // Act
    const next = await invoke(getJobTokensHandler, { method: 'GET', route: '/jobs/{jobId}/tokens', pathParameters: { jobId: 'job-1' }, query: { cursor } });
    const bad = await invoke(getJobTokensHandler, { method: 'GET', route: '/jobs/{jobId}/tokens', pathParameters: { jobId: 'job-1' }, query: { cursor: '../x' } });

    // Assess
    expect(submitted.statusCode).toBe(201);
    expect(cursor).toBe(`wf-${String(TOKEN_PAGE_SIZE - 1).padStart(5, '0')}`);
    expect(next.statusCode).toBe(200);
    expect((next.body['workflows'] as Array<{ workflowId: string }>).map((w) => w.workflowId)).toEqual(['wf-01000', 'wf-01001']);
    expect(next.body['nextCursor']).toBeUndefined();
    expect(bad.statusCode).toBe(400);
    expect(errorOf(bad).code).toBe('invalid_request');
  });
});
