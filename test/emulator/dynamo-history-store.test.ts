import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import type { JobListing } from '../../shared/domain/history/job-listing.js';
import { DEFAULT_TENANT } from '../../shared/domain/tenant.js';
import { uniqueName } from '../support/aws-test-resources.js';
import { describeWithEmulator } from '../support/emulator.js';

const NOW = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const T = 'arn:aws:sts::111111111111:assumed-role/team-t';

const listing = (jobId: string, ageMs: number, tenant?: string, status: JobListing['status'] = 'RUNNING'): JobListing => ({
  jobId,
  ...(tenant !== undefined ? { tenant } : {}),
  status,
  strategy: 'local_authority',
  createdAt: NOW - ageMs,
  deadlineAt: NOW - ageMs + 60_000,
});

describeWithEmulator('DynamoDB history store: the jobs list is per tenant', (emulator) => {
  it("each tenant pages through its own rows only (rows without a tenant are the default tenant's), with and without a status filter", async () => {
    // Prepare
    const client = new DynamoDBClient(emulator.clientConfig());
    const tableName = uniqueName('vigil-history');
    await ensureTable(client, tableName, false);
    const store = new DynamoHistoryStore(DynamoDBDocumentClient.from(client), tableName, () => NOW);
    const rows = [listing('t-1', 1_000, T), listing('d-1', 2_000), listing('t-2', 3_000, T, 'TIMED_OUT'), listing('d-2', 4_000, undefined, 'TIMED_OUT'), listing('t-3', 5_000, T)];
    for (const row of rows) await store.putListing(row);
    const everyPage = async (tenant: string, status?: JobListing['status']) => {
      const ids: string[] = [];
      for (let cursor: string | undefined, pages = 0; pages < 20; pages++) {
        const page = await store.listJobs({ tenant, limit: 1, ...(status ? { status } : {}), ...(cursor ? { cursor } : {}) });
        ids.push(...page.jobs.map((job) => job.jobId));
        cursor = page.nextCursor;
        if (!cursor) break;
      }
      return ids;
    };
    // Act
    const [ofT, ofDefault, ofOther, timedOutOfT] = [await everyPage(T), await everyPage(DEFAULT_TENANT), await everyPage('team-u'), await everyPage(T, 'TIMED_OUT')];
    // Assess
    expect(ofT).toEqual(['t-1', 't-2', 't-3']);
    expect(ofDefault).toEqual(['d-1', 'd-2']);
    expect(ofOther).toEqual([]);
    expect(timedOutOfT).toEqual(['t-2']);
  });
});
