import type { GateJob } from '../../domain/gate/gate-job.js';
import { gateHistoryEntries } from '../../domain/history/gate-history.js';
import type { HistoryEntry, SampleWindow } from '../../domain/history/history-entry.js';
import { jobHistoryEntries } from '../../domain/history/job-history.js';
import { gateJobListing, jobListing, listingChanged, type JobListing } from '../../domain/history/job-listing.js';
import type { Job } from '../../domain/job.js';
import type { EpochMs } from '../../domain/time.js';
import type { HistoryStore } from '../../ports/history-store.js';
import type { Telemetry } from '../../ports/telemetry.js';

/**
 * The views of one kind of state for people: its history and its row in the jobs list.
 * `record` writes what one saved decision changed; `rewriteFinished` writes a finished item's row
 * again (decide-and-save.ts keeps the item's outbox until that row is written). Each answers false
 * when its write failed: that is logged and never fails or repeats a decision (the state write
 * already happened and is the truth).
 */
export interface StateViews<State> {
  /** `finishing`: the decision ended the item; its row is written even when unchanged (an earlier write of it may have failed). */
  record(before: State, after: State, at: EpochMs, finishing?: boolean): Promise<boolean>;
  rewriteFinished(state: State): Promise<boolean>;
}

interface Described {
  jobId: string;
  entries: HistoryEntry[];
  window: SampleWindow;
  listing?: JobListing;
}

function stateViews<State>(
  history: HistoryStore,
  telemetry: Telemetry,
  listingOf: (state: State) => JobListing,
  describe: (before: State, after: State, at: EpochMs) => Omit<Described, 'listing'>,
): StateViews<State> {
  return {
    async record(before, after, at, finishing = false) {
      const { jobId, entries, window } = describe(before, after, at);
      const listing = listingOf(after);
      const changed = finishing || listingChanged(listingOf(before), listing);
      if (entries.length === 0 && !changed) return true;
      try {
        // One batch for both: a burst of decisions (a thousand timeouts due together) competes for the table.
        await history.append(jobId, entries, window, changed ? listing : undefined);
        return true;
      } catch (error) {
        telemetry.warn('history not recorded', { jobId, error: String(error) });
        return false;
      }
    },
    rewriteFinished: (state) => recordListing(history, telemetry, listingOf(state)),
  };
}

export const jobViews = (history: HistoryStore, telemetry: Telemetry): StateViews<Job> =>
  stateViews<Job>(history, telemetry, jobListing, (before, after, at) => ({
    jobId: after.jobId,
    entries: jobHistoryEntries(before, after, at),
    window: { startedAt: after.tracking.startedAt, timeoutSeconds: after.tracking.timeoutSeconds },
  }));

export const gateViews = (history: HistoryStore, telemetry: Telemetry): StateViews<GateJob> =>
  stateViews<GateJob>(history, telemetry, gateJobListing, (before, after, at) => ({
    jobId: after.jobId,
    entries: gateHistoryEntries(before, after, at),
    window: { startedAt: after.submittedAt, timeoutSeconds: after.timeoutSeconds },
  }));

/** Writes a job's row in the jobs list (a new job's first, a finished one's again); false when that failed, never throws. */
export async function recordListing(history: HistoryStore | undefined, telemetry: Telemetry, listing: JobListing): Promise<boolean> {
  try {
    await history?.putListing(listing);
    return true;
  } catch (error) {
    telemetry.warn('job listing not recorded', { jobId: listing.jobId, error: String(error) });
    return false;
  }
}
