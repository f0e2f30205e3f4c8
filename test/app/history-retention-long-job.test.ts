import { DynamoDBDocumentClient, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { TTL_ATTRIBUTE } from '../../shared/adapters/aws/jobs-table.js';
import { startTestDynamo } from '../support/dynalite.js';

const DAY_SECONDS = 24 * 3600;
const T0 = Date.parse('2026-03-10T12:00:00.000Z');

/**
 * docs/console.md: history entries outlive their job's item (30 days after it finished) by a day.
 * A job may run up to a year (contract: `timeoutSeconds` ≤ 31,536,000), so an entry's TTL counted
 * from the entry's own time removed a long job's early entries (a takeover, a grant in its first
 * days) while the job still ran, and its history answer lost them.
 */
describe("the history of a job longer than the entries' retention (dynalite)", () => {
  let dynamo: Awaited<ReturnType<typeof startTestDynamo>>;
  let doc: DynamoDBDocumentClient;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    doc = DynamoDBDocumentClient.from(dynamo.client);
  });
  afterAll(async () => {
    await dynamo.close();
  });

  it("an entry from a 60-day job's first hour is kept until a day after the job's item expires at the earliest", async () => {
    // Prepare: a 60-day job; its item expires 30 days after it ends, at the earliest its original deadline
    const tableName = await dynamo.table(false);
    const store = new DynamoHistoryStore(doc, tableName, () => T0);
    const timeoutSeconds = 60 * DAY_SECONDS;
    const jobItemExpiresAtTheEarliest = Math.floor(T0 / 1000) + timeoutSeconds + 30 * DAY_SECONDS;

    // Act: a takeover an hour in
    await store.append('long-1', [{ kind: 'takeover', at: T0 + 3_600_000, fromFenceToken: 1, toFenceToken: 2 }], { startedAt: T0, timeoutSeconds });

    // Assess
    const { Items = [] } = await doc.send(new QueryCommand({ TableName: tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': 'HISTORY#long-1' } }));
    expect(Items).toHaveLength(1);
    expect(Number(Items[0]?.[TTL_ATTRIBUTE])).toBeGreaterThanOrEqual(jobItemExpiresAtTheEarliest + DAY_SECONDS);
  });
});
