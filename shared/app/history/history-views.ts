import type { HistoryEntry } from '../../domain/history/history-entry.js';
import type { JobListing } from '../../domain/history/job-listing.js';
import { toIso, type EpochMs } from '../../domain/time.js';

/** At most this many stored entries per answer (each well under 1 KB, so an answer stays far below 6 MB). */
export const HISTORY_READ_LIMIT = 2_000;

const TIME_FIELDS = new Set(['at', 'fromDeadlineAt', 'toDeadlineAt', 'lastProgressAt']);

/** An entry as the API shows it: every time as ISO-8601. */
export function historyEntryView(entry: HistoryEntry | { kind: 'submitted'; at: EpochMs; deadlineAt: EpochMs }): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(entry).map(([name, value]) => [name, TIME_FIELDS.has(name) || name === 'deadlineAt' ? toIso(value as EpochMs) : value]),
  );
}

export const sortedByTime = <Entry extends { at: EpochMs }>(entries: Entry[]): Entry[] => [...entries].sort((a, b) => a.at - b.at);

/** The caller's own tenant needs no saying: a list shows only its jobs. */
export const listingView = ({ tenant: _tenant, provisional: _provisional, ...listing }: JobListing) => ({
  ...listing,
  createdAt: toIso(listing.createdAt),
  deadlineAt: toIso(listing.deadlineAt),
  ...(listing.finishedAt !== undefined ? { finishedAt: toIso(listing.finishedAt) } : {}),
});
