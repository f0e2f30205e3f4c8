import { beforeAll, describe, expect, it } from 'vitest';
import { handler as listJobsRoute } from '../../functions/api/list-jobs.js';
import { CursorNotIssuedError } from '../../shared/domain/errors.js';
import type { JobListing } from '../../shared/domain/history/job-listing.js';
import type { JobStatus } from '../../shared/domain/job.js';
import { installManagerResolver } from '../../shared/wiring/manager-resolver.js';
import { T0 } from '../support/fixtures.js';
import { invoke } from './support/http-events.js';
import { useTestManager } from './support/test-manager.js';

const row = (jobId: string, status: JobStatus, createdAt: number): JobListing => ({
  jobId,
  status,
  strategy: 'local_authority',
  createdAt,
  deadlineAt: createdAt + 60_000,
  ...(status !== 'RUNNING' ? { finishedAt: createdAt + 1_000 } : {}),
});

const page = (query: Record<string, string>) => invoke(listJobsRoute, { method: 'GET', route: '/jobs', query });
const notIssued = { error: { code: 'invalid_request', message: new CursorNotIssuedError().message } };

/**
 * A cursor is the position of the listing that gave it out, and the listing is the filter's: the
 * escalations list binds its cursor to its `poolId` filter, so the jobs list binds its own to its
 * `status` filter. Sent with another filter, a cursor would silently skip every job of that filter
 * newer than the position: a partial list that looks whole.
 */
describe('GET /jobs: a page cursor continues only the listing that gave it out (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });
  beforeAll(() => {
    installManagerResolver(async () => m.deps);
  });

  it("a cursor of ?status=RUNNING is refused with another status or none, not answered with that list's older part", async () => {
    // Prepare: newest first, f-4 r-3 f-3 r-2 f-2 r-1 f-1 (f-4, newer than r-3, is what another filter would skip)
    for (let n = 1; n <= 3; n++) {
      await m.deps.history!.putListing(row(`f-${n}`, 'FAILED', T0 + n * 10));
      await m.deps.history!.putListing(row(`r-${n}`, 'RUNNING', T0 + n * 10 + 5));
    }
    await m.deps.history!.putListing(row('f-4', 'FAILED', T0 + 40));
    const first = await page({ status: 'RUNNING', limit: '1' });
    expect((first.body as { jobs: Array<{ jobId: string }> }).jobs.map((j) => j.jobId)).toEqual(['r-3']);
    const cursor = String(first.body['nextCursor']);

    // Act
    const otherStatus = await page({ status: 'FAILED', limit: '10', cursor });
    const noStatus = await page({ limit: '10', cursor });

    // Assess
    expect({ statusCode: otherStatus.statusCode, body: otherStatus.body }).toEqual({ statusCode: 400, body: notIssued });
    expect({ statusCode: noStatus.statusCode, body: noStatus.body }).toEqual({ statusCode: 400, body: notIssued });
    const next = await page({ status: 'RUNNING', limit: '10', cursor });
    expect((next.body as { jobs: Array<{ jobId: string }> }).jobs.map((j) => j.jobId)).toEqual(['r-2', 'r-1']);
  });
});
