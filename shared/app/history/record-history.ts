import type { GateJob } from '../../domain/gate/gate-job.js';
import { gateHistoryEntries } from '../../domain/history/gate-history.js';
import type { HistoryEntry, SampleWindow } from '../../domain/history/history-entry.js';
import { jobHistoryEntries } from '../../domain/history/job-history.js';
import { gateJobListing, jobListing, listingChanged, type JobListing } from '../../domain/history/job-listing.js';
import type { Job } from '../../domain/job.js';
import type { EpochMs } from '../../domain/time.js';
import type { HistoryStore } from '../../ports/history-store.js';
import type { Telemetry } from '../../ports/telemetry.js';

/** Records what one saved decision changed: history entries and, when the list shows it, the listing. */
export type HistoryRecorder<State> = (before: State, after: State, at: EpochMs) => Promise<void>;

/**
 * History is a view for people, written after the state: a failure here is logged and never fails
 * or repeats the decision (the state write already happened and is the truth).
 */
function recorder<State>(
  history: HistoryStore,
  telemetry: Telemetry,
  describe: (before: State, after: State, at: EpochMs) => { jobId: string; entries: HistoryEntry[]; window: SampleWindow; listing?: JobListing },
): HistoryRecorder<State> {
  return async (before, after, at) => {
    const { jobId, entries, window, listing } = describe(before, after, at);
    try {
      // One batch for both: a burst of decisions (a thousand timeouts due together) competes for the table.
      if (entries.length > 0 || listing) await history.append(jobId, entries, window, listing);
    } catch (error) {
      telemetry.warn('history not recorded', { jobId, error: String(error) });
    }
  };
}

const changedListing = (before: JobListing, after: JobListing) => (listingChanged(before, after) ? { listing: after } : {});

export const jobHistoryRecorder = (history: HistoryStore, telemetry: Telemetry): HistoryRecorder<Job> =>
  recorder<Job>(history, telemetry, (before, after, at) => ({
    jobId: after.jobId,
    entries: jobHistoryEntries(before, after, at),
    window: { startedAt: after.tracking.startedAt, timeoutSeconds: after.tracking.timeoutSeconds },
    ...changedListing(jobListing(before), jobListing(after)),
  }));

export const gateHistoryRecorder = (history: HistoryStore, telemetry: Telemetry): HistoryRecorder<GateJob> =>
  recorder<GateJob>(history, telemetry, (before, after, at) => ({
    jobId: after.jobId,
    entries: gateHistoryEntries(before, after, at),
    window: { startedAt: after.submittedAt, timeoutSeconds: after.timeoutSeconds },
    ...changedListing(gateJobListing(before), gateJobListing(after)),
  }));

/** A new job's first listing; never fails the submission. */
export async function recordListing(history: HistoryStore | undefined, telemetry: Telemetry, listing: JobListing): Promise<void> {
  try {
    await history?.putListing(listing);
  } catch (error) {
    telemetry.warn('job listing not recorded', { jobId: listing.jobId, error: String(error) });
  }
}
