import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { TTL_ATTRIBUTE } from '../../shared/adapters/aws/jobs-table.js';
import { startTestDynamo } from '../support/dynalite.js';

const DAY_MS = 24 * 3600 * 1000;
const T0 = Date.parse('2026-03-10T12:00:00.000Z');

/**
 * The sibling of history-retention-long-job.test.ts for the jobs list: a job may run up to a year,
 * and its RUNNING row was kept 31 days after its submission, so `GET /jobs` (and the console's list)
 * lost a job of more than a month while it still ran.
 */
describe("the jobs-list row of a job longer than the list's retention (dynalite)", () => {
  let dynamo: Awaited<ReturnType<typeof startTestDynamo>>;
  let doc: DynamoDBDocumentClient;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    doc = DynamoDBDocumentClient.from(dynamo.client);
  });
  afterAll(async () => {
    await dynamo.close();
  });

  it("a 60-day job's RUNNING row is kept at least until its deadline", async () => {
    // Prepare
    const tableName = await dynamo.table(false);
    const store = new DynamoHistoryStore(doc, tableName, () => T0);
    const deadlineAt = T0 + 60 * DAY_MS;

    // Act: the row written at submission
    await store.putListing({ jobId: 'long-1', status: 'RUNNING', strategy: 'local_authority', createdAt: T0, deadlineAt });

    // Assess
    const { Items = [] } = await doc.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': `JOBLIST#${Math.floor(T0 / DAY_MS)}` } }));
    expect(Items).toHaveLength(1);
    expect(Number(Items[0]?.[TTL_ATTRIBUTE])).toBeGreaterThan(Math.floor(deadlineAt / 1000));
  });
});
