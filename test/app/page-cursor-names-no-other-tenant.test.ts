import { beforeAll, describe, expect, it } from 'vitest';
import { handler as listJobsRoute } from '../../functions/api/list-jobs.js';
import { handler as listEscalationsRoute } from '../../functions/pools/list-escalations.js';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { listJobs } from '../../shared/app/history/list-jobs.js';
import { PageCursors } from '../../shared/app/page-cursors.js';
import { CursorNotIssuedError } from '../../shared/domain/errors.js';
import type { JobListing } from '../../shared/domain/history/job-listing.js';
import type { HistoryStore } from '../../shared/ports/history-store.js';
import { installManagerResolver } from '../../shared/wiring/manager-resolver.js';
import { T0 } from '../support/fixtures.js';
import { newPool } from './pools/pool-test-support.js';
import { invoke } from './support/http-events.js';
import { testGateCursors, useTestManager, type TestManager } from './support/test-manager.js';
import { asT, asU, T_ROLE, U_USER, type Caller } from './support/tenants.js';

// Review (security): the jobs list's days and the escalation pointers are partitions every tenant
// shares, read and then filtered by tenant; a page's cursor was the last key read, often another
// tenant's row, in readable base64url JSON (or `pool~item~n`), and any start could be forged.

/** Everything a caller can read out of an answer: its JSON, and its cursor decoded as cursors used to be encoded (base64url JSON). */
const readable = (body: Record<string, unknown>): string => {
  const cursor = typeof body['nextCursor'] === 'string' ? body['nextCursor'] : '';
  return `${JSON.stringify(body)}\n${Buffer.from(cursor, 'base64url').toString('utf8')}`;
};

const row = (jobId: string, tenant: string, createdAt: number): JobListing => ({ jobId, tenant, status: 'RUNNING', strategy: 'local_authority', createdAt, deadlineAt: createdAt + 60_000 });

/** U's one job is the newest row of the day; 150 of T's jobs ('t-secret-…') were submitted just before it. */
async function uNewestOfManyT(history: HistoryStore): Promise<void> {
  await history.putListing(row('u-job', U_USER, T0));
  for (let n = 1; n <= 150; n++) await history.putListing(row(`t-secret-${String(n).padStart(3, '0')}`, T_ROLE, T0 - n));
}

/** 420 escalation pointers of U's pool 'u-secret-pool'; T has none. */
async function uEscalations(m: TestManager): Promise<void> {
  for (let n = 0; n < 420; n++) {
    const itemId = `u-item-${String(n).padStart(3, '0')}`;
    await m.deps.pools.putEscalationPointer({ escalationId: `u-secret-pool~${itemId}~1`, poolId: 'u-secret-pool', tenant: U_USER, itemId, askedAt: T0 });
  }
}

const jobsPage = (caller: Caller, query: Record<string, string> = {}) => invoke(listJobsRoute, { method: 'GET', route: '/jobs', query: { limit: '1', ...query }, ...caller });
const escalationsPage = (caller: Caller, query: Record<string, string> = {}) => invoke(listEscalationsRoute, { method: 'GET', route: '/escalations', query, ...caller });
const cursorOf = (body: Record<string, unknown>): string => {
  const cursor = body['nextCursor'];
  if (typeof cursor !== 'string') throw new Error(`no nextCursor in ${JSON.stringify(body)}`);
  return cursor;
};
/** One character changed in the middle (the nonce): the sealed bytes no longer authenticate. */
const tampered = (cursor: string) => `${cursor.slice(0, 8)}${cursor[8] === 'A' ? 'B' : 'A'}${cursor.slice(9)}`;
const notIssued = { error: { code: 'invalid_request', message: new CursorNotIssuedError().message } };

describe('page cursors of the listings every tenant shares (dynalite)', () => {
  const m = useTestManager({ history: (real) => real });
  beforeAll(() => {
    installManagerResolver(async () => m.deps);
  });

  describe("a page cursor never names another tenant's resource", () => {
    it("GET /jobs?limit=1: U's nextCursor does not carry T's job id and submission time", async () => {
      // Prepare
      await uNewestOfManyT(m.deps.history!);
      // Act
      const page = await jobsPage(asU);
      // Assess: U sees its own job, and nothing of T's, in the answer or in its cursor.
      expect(page.statusCode).toBe(200);
      expect((page.body['jobs'] as Array<{ jobId: string }>).map((j) => j.jobId)).toEqual(['u-job']);
      expect(readable(page.body)).not.toContain('t-secret-');
      expect(readable(page.body)).not.toContain(String(T0 - 1));
    });

    it("the gate's GET /jobs (its own key): U's nextCursor does not carry T's job id, and a region's cursor does not open there", async () => {
      // Prepare: the gate's list in a table of its own, as deployed.
      const gate = { history: new DynamoHistoryStore(m.doc, await m.dynamo.table(false), () => m.clock.now()), cursors: testGateCursors() };
      await uNewestOfManyT(gate.history);
      await uNewestOfManyT(m.deps.history!);
      const regionCursor = cursorOf(await listJobs(m.deps, { limit: '1' }, U_USER));
      // Act
      const page = await listJobs(gate, { limit: '1' }, U_USER);
      const foreign = await listJobs(gate, { cursor: regionCursor }, U_USER).catch((error: unknown) => error);
      // Assess
      expect(page.jobs.map((j) => j.jobId)).toEqual(['u-job']);
      expect(readable(page)).not.toContain('t-secret-');
      expect(foreign).toBeInstanceOf(CursorNotIssuedError);
    });

    it("GET /escalations (every pool of the caller's tenant): T's nextCursor does not name U's pool and item", async () => {
      // Prepare
      await uEscalations(m);
      // Act
      const page = await escalationsPage(asT);
      // Assess
      expect(page.statusCode).toBe(200);
      expect(page.body['escalations']).toEqual([]);
      expect(readable(page.body)).not.toContain('u-secret-pool');
    });

    it("a tenant's cursor still leads it on: T's pages of GET /escalations end without ever listing U's", async () => {
      // Prepare
      await uEscalations(m);
      // Act: T follows its cursors to the end.
      const listed: unknown[] = [];
      let pages = 0;
      for (let cursor: string | undefined; pages === 0 || cursor !== undefined; pages++) {
        const page = await escalationsPage(asT, cursor === undefined ? {} : { cursor });
        expect(page.statusCode).toBe(200);
        listed.push(...(page.body['escalations'] as unknown[]));
        cursor = typeof page.body['nextCursor'] === 'string' ? page.body['nextCursor'] : undefined;
      }
      // Assess
      expect(listed).toEqual([]);
      expect(pages).toBeGreaterThan(1);
    });
  });

  describe('a cursor this API did not give out is a 400, as a malformed one is', () => {
    it('GET /jobs: a tampered cursor, another tenant\'s, another region\'s (another key) and a forged readable one are each refused', async () => {
      // Prepare
      await uNewestOfManyT(m.deps.history!);
      const own = cursorOf((await jobsPage(asU)).body);
      const anotherRegions = cursorOf(await listJobs({ history: m.deps.history, cursors: new PageCursors(Buffer.from('another region')) }, { limit: '1' }, U_USER));
      const forged = Buffer.from(JSON.stringify({ day: Math.floor(T0 / 86_400_000), after: `${String(T0).padStart(15, '0')}#t-secret-001` })).toString('base64url');
      // Act
      const answers = await Promise.all([
        jobsPage(asU, { cursor: tampered(own) }),
        jobsPage(asT, { cursor: own }),
        jobsPage(asU, { cursor: anotherRegions }),
        jobsPage(asU, { cursor: forged }),
      ]);
      // Assess
      for (const answer of answers) expect({ statusCode: answer.statusCode, body: answer.body }).toEqual({ statusCode: 400, body: notIssued });
      expect((await jobsPage(asU, { cursor: own })).statusCode).toBe(200);
    });

    it("GET /escalations: a tampered cursor, another tenant's, another poolId's and a readable escalation id are each refused", async () => {
      // Prepare: U's cursor over every pool of U, and one over its pool.
      await newPool(m.deps, {}, ['seed'], 'u-secret-pool', U_USER);
      await uEscalations(m);
      const everyPool = cursorOf((await escalationsPage(asU)).body);
      const ofPool = cursorOf((await escalationsPage(asU, { poolId: 'u-secret-pool' })).body);
      // Act
      const answers = await Promise.all([
        escalationsPage(asU, { cursor: tampered(everyPool) }),
        escalationsPage(asT, { cursor: everyPool }),
        escalationsPage(asU, { cursor: everyPool, poolId: 'u-secret-pool' }),
        escalationsPage(asU, { cursor: ofPool }),
        escalationsPage(asU, { cursor: 'u-secret-pool~u-item-100~1' }),
      ]);
      // Assess
      for (const answer of answers) expect({ statusCode: answer.statusCode, body: answer.body }).toEqual({ statusCode: 400, body: notIssued });
      expect((await escalationsPage(asU, { cursor: ofPool, poolId: 'u-secret-pool' })).statusCode).toBe(200);
    });
  });
});
