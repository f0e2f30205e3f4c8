import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { sendPut, sendQuery } from './document-calls.js';
import { historySlot, type HistoryEntry, type SampleWindow } from '../../domain/history/history-entry.js';
import type { JobListing } from '../../domain/history/job-listing.js';
import { CursorNotIssuedError } from '../../domain/errors.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { secondsToMs, type EpochMs } from '../../domain/time.js';
import type { HistoryStore, JobListQuery } from '../../ports/history-store.js';
import { GroupCommit } from './group-commit.js';
import { TTL_ATTRIBUTE } from './jobs-table.js';
import { queryItems } from './query-pages.js';

const DAY_MS = 24 * 3600 * 1000;
/** History and listings outlive the job item's 30-day retention a little, then TTL removes them. */
const RETENTION_MS = 31 * DAY_MS;
/** The jobs list covers jobs submitted in the last this many days (one list partition per day). */
export const LISTED_DAYS = 30;
/** Queries one list call may spend before it answers with a cursor: a filter that matches little stays cheap. */
const MAX_QUERIES_PER_PAGE = 40;
const DAYS_PER_ROUND = 8;
/**
 * Rows one day's query reads at least. The filter (tenant, status) drops rows after DynamoDB counts
 * them, so reading only as many rows as the page still needs would crawl through a day full of other
 * tenants' jobs a few rows per page; rows read beyond the page are read again by the next one.
 */
const MIN_ROWS_PER_QUERY = 100;

const historyPk = (jobId: string) => `HISTORY#${jobId}`;
const listPk = (day: number) => `JOBLIST#${day}`;
const listSk = (listing: JobListing) => `${String(listing.createdAt).padStart(15, '0')}#${listing.jobId}`;
const LIST_SK = /^\d{15}#[A-Za-z0-9._:-]{1,128}$/;
const dayOf = (at: EpochMs) => Math.floor(at / DAY_MS);
const expiresAt = (at: EpochMs) => Math.floor((at + RETENTION_MS) / 1000);

interface Cursor {
  day: number;
  after?: string;
}

function parseCursor(cursor: string): Cursor {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (typeof parsed === 'object' && parsed !== null && 'day' in parsed && Number.isInteger(parsed.day) && Number(parsed.day) >= 0) {
      const after = 'after' in parsed ? parsed.after : undefined;
      // Only a row key this list issued: a submission time and a job id (`listSk`).
      if (after === undefined) return { day: Number(parsed.day) };
      if (typeof after === 'string' && LIST_SK.test(after)) return { day: Number(parsed.day), after };
    }
  } catch {
    // fall through to the error below
  }
  throw new CursorNotIssuedError();
}

const encodeCursor = (cursor: Cursor) => Buffer.from(JSON.stringify(cursor), 'utf8').toString('base64url');

/** A row a later one may replace: written only over no row or another such row (putReplaceableRow). */
const isReplaceable = (listing: JobListing): boolean => listing.status === 'RUNNING' || listing.provisional === true;

const listingItem = (listing: JobListing) => ({
  ...listing,
  pk: listPk(dayOf(listing.createdAt)),
  sk: listSk(listing),
  // A job still running is kept past its deadline as it stands (a job may run for up to a year); once
  // it ends, past its end, as its item is.
  [TTL_ATTRIBUTE]: expiresAt(listing.finishedAt ?? Math.max(listing.createdAt, listing.deadlineAt)),
});

/**
 * The list's filter: the caller's tenant (`ownedBy` as DynamoDB reads it: a row without a tenant is
 * the default tenant's) and, when asked, one status. A filter only drops rows after the read, so
 * paging still walks the same keys: nothing is dropped or repeated across pages.
 */
function listFilter({ tenant, status }: Pick<JobListQuery, 'tenant' | 'status'>) {
  const ownTenant = tenant === DEFAULT_TENANT ? 'attribute_not_exists(#tenant)' : '#tenant = :tenant';
  return {
    FilterExpression: status ? `${ownTenant} AND #status = :status` : ownTenant,
    ExpressionAttributeNames: { '#tenant': 'tenant', ...(status ? { '#status': 'status' } : {}) },
    values: { ...(tenant !== DEFAULT_TENANT ? { ':tenant': tenant } : {}), ...(status ? { ':status': status } : {}) },
  };
}

/**
 * History entries as items `HISTORY#<jobId>` / slot, and the jobs list as one partition per day of
 * submission (`JOBLIST#<day>`, sorted by submission time). Both in the state table, neither read
 * by a decision.
 */
export class DynamoHistoryStore implements HistoryStore {
  /** Decisions come in bursts (a wave of timeouts) and their views are idempotent puts: they share requests. */
  private readonly puts: GroupCommit;

  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => EpochMs = Date.now,
  ) {
    this.puts = new GroupCommit(doc, tableName);
  }

  async append(jobId: string, entries: readonly HistoryEntry[], window: SampleWindow, listing?: JobListing): Promise<void> {
    // One item per slot (a batch may not name a key twice); the later fact of a slot wins.
    const bySlot = new Map<string, Record<string, unknown>>();
    // Counted from the job's original deadline at the earliest: a job may run for up to a year, and
    // its first entries must not expire while it still runs (nor before its item does, 30 days after it ends).
    const keptFrom = window.startedAt + secondsToMs(window.timeoutSeconds);
    for (const entry of entries) {
      const sk = historySlot(entry, window);
      if (sk !== undefined) bySlot.set(sk, { ...entry, pk: historyPk(jobId), sk, [TTL_ATTRIBUTE]: expiresAt(Math.max(entry.at, keptFrom)) });
    }
    const replaceable = listing !== undefined && isReplaceable(listing);
    const items = [...bySlot.values(), ...(listing && !replaceable ? [listingItem(listing)] : [])];
    await Promise.all([items.length > 0 ? this.puts.put(items) : undefined, replaceable ? this.putReplaceableRow(listing) : undefined]);
  }

  async read(jobId: string, limit: number) {
    // One more than asked tells whether others follow: a page's next key does not (DynamoDB names one
    // whenever it stops at the limit, even at the end), and a page can end at 1 MB well before it.
    const items = await queryItems(this.doc, { TableName: this.tableName, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': historyPk(jobId) } }, limit + 1);
    const entries = items.slice(0, limit).map(({ pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...entry }) => entry as HistoryEntry);
    return { entries, truncated: items.length > limit };
  }

  async putListing(listing: JobListing): Promise<void> {
    if (isReplaceable(listing)) await this.putReplaceableRow(listing);
    else await this.puts.put([listingItem(listing)]);
  }

  /**
   * A running job's row never replaces a later one: a slower writer (a submit still running its
   * effects, a decision whose view was held up) may land after the decision that ended the job, and
   * its row would list it RUNNING for good. Likewise a gate job's provisional CANCELLED never replaces
   * the row of how its regions ended. Final rows are final and share batched requests.
   */
  private async putReplaceableRow(listing: JobListing): Promise<void> {
    const replaces = listing.provisional ? 'attribute_not_exists(#status) OR #status = :running OR #provisional = :yes' : 'attribute_not_exists(#status) OR #status = :running';
    try {
      await sendPut(this.doc, {
        TableName: this.tableName,
        Item: listingItem(listing),
        ConditionExpression: replaces,
        ExpressionAttributeNames: { '#status': 'status', ...(listing.provisional ? { '#provisional': 'provisional' } : {}) },
        ExpressionAttributeValues: { ':running': 'RUNNING', ...(listing.provisional ? { ':yes': true } : {}) },
      });
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }

  async listJobs(query: JobListQuery) {
    const today = dayOf(this.now());
    const oldest = today - LISTED_DAYS + 1;
    let { day, after } = query.cursor ? parseCursor(query.cursor) : { day: today, after: undefined };
    // Issued cursors name today or an earlier day (one past the list's end simply ends it).
    if (day > today) throw new CursorNotIssuedError();
    const jobs: JobListing[] = [];
    let queries = 0;
    for (; day >= oldest && queries < MAX_QUERIES_PER_PAGE; ) {
      // A few days at once: most days of a quiet table are empty, and one round trip per day adds up.
      const days = Array.from({ length: Math.min(DAYS_PER_ROUND, day - oldest + 1) }, (_, i) => day - i);
      queries += days.length;
      const pages = await Promise.all(days.map((d, i) => this.listDay(d, i === 0 ? after : undefined, query.limit - jobs.length, query)));
      for (const [i, page] of pages.entries()) {
        const taken = page.jobs.slice(0, query.limit - jobs.length);
        jobs.push(...taken);
        day = days[i] ?? day;
        const lastTaken = taken.at(-1);
        if (taken.length < page.jobs.length) {
          // The page read more of this day than fit: the next page starts right after the last row taken.
          after = lastTaken ? listSk(lastTaken) : i === 0 ? after : undefined;
          break;
        }
        after = page.lastSk;
        if (page.lastSk === undefined) {
          day -= 1;
          continue;
        }
        // A day that has more than fit: the next page starts inside it (later days' rows are read again then).
        break;
      }
      if (jobs.length >= query.limit) break;
    }
    // A page that spent its query budget ends with a cursor even when empty: older days are still unread.
    const more = day >= oldest && (jobs.length >= query.limit || after !== undefined || queries >= MAX_QUERIES_PER_PAGE);
    return more ? { jobs, nextCursor: encodeCursor({ day, ...(after ? { after } : {}) }) } : { jobs };
  }

  private async listDay(day: number, after: string | undefined, limit: number, query: JobListQuery) {
    const { values, ...filter } = listFilter(query);
    const page = await sendQuery(this.doc, {
      TableName: this.tableName,
      KeyConditionExpression: after ? 'pk = :pk AND sk < :after' : 'pk = :pk',
      ExpressionAttributeValues: { ':pk': listPk(day), ...(after ? { ':after': after } : {}), ...values },
      ...filter,
      ScanIndexForward: false,
      Limit: Math.max(limit, MIN_ROWS_PER_QUERY),
    });
    const jobs = (page.Items ?? []).map(({ pk: _pk, sk: _sk, [TTL_ATTRIBUTE]: _ttl, ...listing }) => listing as JobListing);
    const lastSk = page.LastEvaluatedKey?.['sk'];
    return { jobs, lastSk: typeof lastSk === 'string' ? lastSk : undefined };
  }
}
