import { PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { historySlot, type HistoryEntry, type SampleWindow } from '../../domain/history/history-entry.js';
import type { JobListing } from '../../domain/history/job-listing.js';
import { InvalidRequestError } from '../../domain/errors.js';
import type { EpochMs } from '../../domain/time.js';
import type { HistoryStore, JobListQuery } from '../../ports/history-store.js';
import { batchPut } from './batch-requests.js';
import { TTL_ATTRIBUTE } from './jobs-table.js';

const DAY_MS = 24 * 3600 * 1000;
/** History and listings outlive the job item's 30-day retention a little, then TTL removes them. */
const RETENTION_MS = 31 * DAY_MS;
/** The jobs list covers jobs submitted in the last this many days (one list partition per day). */
export const LISTED_DAYS = 30;
/** Queries one list call may spend before it answers with a cursor: a filter that matches little stays cheap. */
const MAX_QUERIES_PER_PAGE = 40;

const historyPk = (jobId: string) => `HISTORY#${jobId}`;
const listPk = (day: number) => `JOBLIST#${day}`;
const listSk = (listing: JobListing) => `${String(listing.createdAt).padStart(15, '0')}#${listing.jobId}`;
const dayOf = (at: EpochMs) => Math.floor(at / DAY_MS);
const expiresAt = (at: EpochMs) => Math.floor((at + RETENTION_MS) / 1000);

interface Cursor {
  day: number;
  after?: string;
}

function parseCursor(cursor: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'day' in parsed && Number.isInteger(parsed.day)) {
      const after = 'after' in parsed && typeof parsed.after === 'string' ? parsed.after : undefined;
      return { day: Number(parsed.day), ...(after !== undefined ? { after } : {}) };
    }
  } catch {
    // fall through to the error below
  }
  throw new InvalidRequestError("The 'cursor' is not one this API issued. Pass the 'nextCursor' of the previous page unchanged, or omit it.");
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

/**
 * History entries as items `HISTORY#<jobId>` / slot, and the jobs list as one partition per day of
 * submission (`JOBLIST#<day>`, sorted by submission time). Both in the state table, neither read
 * by a decision.
 */
export class DynamoHistoryStore implements HistoryStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => EpochMs = Date.now,
  ) {}

  async append(jobId: string, entries: readonly HistoryEntry[], window: SampleWindow): Promise<void> {
    // One item per slot (a batch may not name a key twice); the later fact of a slot wins.
    const bySlot = new Map<string, Record<string, unknown>>();
    for (const entry of entries) {
      const sk = historySlot(entry, window);
      if (sk !== undefined) bySlot.set(sk, { ...entry, pk: historyPk(jobId), sk, [TTL_ATTRIBUTE]: expiresAt(entry.at) });
    }
    if (bySlot.size > 0) await batchPut(this.doc, this.tableName, [...bySlot.values()]);
  }

  async read(jobId: string, limit: number) {
    const { Items = [], LastEvaluatedKey } = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': historyPk(jobId) },
        Limit: limit,
      }),
    );
    const entries = Items.map(({ pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...entry }) => entry as HistoryEntry);
    return { entries, truncated: LastEvaluatedKey !== undefined };
  }

  async putListing(listing: JobListing): Promise<void> {
    await this.doc.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...listing, pk: listPk(dayOf(listing.createdAt)), sk: listSk(listing), [TTL_ATTRIBUTE]: expiresAt(listing.finishedAt ?? listing.createdAt) },
      }),
    );
  }

  async listJobs(query: JobListQuery) {
    const today = dayOf(this.now());
    const start = query.cursor ? parseCursor(query.cursor) : { day: today };
    const jobs: JobListing[] = [];
    let day = start.day;
    let after = start.after;
    for (let queries = 0; day > today - LISTED_DAYS; queries++) {
      if (queries === MAX_QUERIES_PER_PAGE) return { jobs, nextCursor: encodeCursor({ day, ...(after ? { after } : {}) }) };
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: after ? 'pk = :pk AND sk < :after' : 'pk = :pk',
          ExpressionAttributeValues: {
            ':pk': listPk(day),
            ...(after ? { ':after': after } : {}),
            ...(query.status ? { ':status': query.status } : {}),
          },
          ...(query.status ? { FilterExpression: '#status = :status', ExpressionAttributeNames: { '#status': 'status' } } : {}),
          ScanIndexForward: false,
          Limit: query.limit - jobs.length,
        }),
      );
      for (const { pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...listing } of page.Items ?? []) jobs.push(listing as JobListing);
      const lastSk = page.LastEvaluatedKey?.['sk'];
      if (typeof lastSk === 'string') after = lastSk;
      else {
        day -= 1;
        after = undefined;
      }
      if (jobs.length >= query.limit) {
        const more = day > today - LISTED_DAYS;
        return more ? { jobs, nextCursor: encodeCursor({ day, ...(after ? { after } : {}) }) } : { jobs };
      }
    }
    return { jobs };
  }
}
