import type { HistoryEntry, SampleWindow } from '../domain/history/history-entry.js';
import type { JobListing } from '../domain/history/job-listing.js';
import type { JobStatus } from '../domain/job.js';

export interface JobListQuery {
  /** Only this tenant's jobs (rows without a tenant are the default tenant's). */
  tenant: string;
  status?: JobStatus;
  limit: number;
  /** The store's own position, from its previous page's `nextCursor` (callers see it sealed: `page-cursors.ts`). */
  cursor?: string;
}

/**
 * A job's decision history and the jobs list, beside the state items of one table. Writes are
 * idempotent puts (a retried one overwrites itself); reads are bounded.
 */
export interface HistoryStore {
  /** With `listing`, the job's row in the jobs list is written in the same batch (one request for a decision's view). */
  append(jobId: string, entries: readonly HistoryEntry[], window: SampleWindow, listing?: JobListing): Promise<void>;
  /** At most `limit` entries, decisions before samples (see `historySlot`); `truncated` when more exist. */
  read(jobId: string, limit: number): Promise<{ entries: HistoryEntry[]; truncated: boolean }>;
  putListing(listing: JobListing): Promise<void>;
  /** Newest first. */
  listJobs(query: JobListQuery): Promise<{ jobs: JobListing[]; nextCursor?: string }>;
}
