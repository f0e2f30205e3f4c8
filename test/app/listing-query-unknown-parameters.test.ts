import { beforeEach, describe, expect, it } from 'vitest';
import { handler as getJob } from '../../functions/api/get-job.js';
import { handler as getJobTokens } from '../../functions/api/get-job-tokens.js';
import { handler as listJobs } from '../../functions/api/list-jobs.js';
import { handler as getCollection } from '../../functions/pools/get-collection.js';
import { handler as listDlq } from '../../functions/pools/list-dlq.js';
import { handler as listEscalations } from '../../functions/pools/list-escalations.js';
import { createPool } from '../../shared/app/pools/create-pool.js';
import { parsePoolSubmission } from '../../shared/contract/parse-pool-submission.js';
import { errorOf, invoke, type HttpRequest } from './support/http-events.js';
import { submit, useHttpTestManager } from './support/test-manager.js';

type Handler = Parameters<typeof invoke>[0];

/**
 * GET /jobs refused a query parameter it does not know; the other listings ignored one, so a misspelt
 * filter or page size (`?pool=`, `?limt=`) answered 200 with the unfiltered, default-sized list.
 */
describe('every listing refuses a query parameter it does not know, as GET /jobs does', () => {
  const m = useHttpTestManager();
  beforeEach(async () => {
    // The job and pool exist, so a listing that ignored the parameter would answer 200.
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    await createPool(m.deps, parsePoolSubmission(JSON.stringify({ poolId: 'p-1', items: [{ itemId: 'i-1' }] }), 'application/json'));
  });

  const cases: Array<[string, Handler, HttpRequest, string]> = [
    ['GET /jobs (the baseline)', listJobs, { method: 'GET', route: '/jobs', query: { stauts: 'RUNNING' } }, 'stauts'],
    ['GET /escalations', listEscalations, { method: 'GET', route: '/escalations', query: { pool: 'p-1' } }, 'pool'],
    ['GET /pools/{poolId}/dlq', listDlq, { method: 'GET', route: '/pools/{poolId}/dlq', pathParameters: { poolId: 'p-1' }, query: { limt: '5' } }, 'limt'],
    [
      'GET /pools/{poolId}/checkpoints/collect/{collectionId}',
      getCollection,
      { method: 'GET', route: '/pools/{poolId}/checkpoints/collect/{collectionId}', pathParameters: { poolId: 'p-1', collectionId: 'c-1' }, query: { page: '2' } },
      'page',
    ],
    ['GET /jobs/{jobId}/tokens', getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', pathParameters: { jobId: 'job-1' }, query: { curosr: 'x' } }, 'curosr'],
    ['GET /jobs/{jobId}', getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-1' }, query: { page: '2' } }, 'page'],
  ];

  it.each(cases)('%s → 400 invalid_request naming the unknown parameter', async (_route, handler, request, unknown) => {
    // Act
    const answer = await invoke(handler, request);
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer).code).toBe('invalid_request');
    expect(errorOf(answer).details?.map((problem) => problem.field)).toEqual([unknown]);
  });
});
