import type { HistoryEntry } from '../../domain/history/history-entry.js';
import type { HistoryStore } from '../../ports/history-store.js';
import { secondsToMs, toIso, type EpochMs } from '../../domain/time.js';
import { HISTORY_READ_LIMIT, historyEntryView, sortedByTime } from './history-views.js';

export interface Timing {
  startedAt: EpochMs;
  timeoutSeconds: number;
  effectiveDeadlineAt: EpochMs;
  timeoutReason?: string;
  finishedAt?: EpochMs;
}

/**
 * History items outlive their job's item by a day, so a job submitted again under an expired job's
 * id (30 days after it finished, at the earliest) could read the earlier job's entries: only entries
 * from its own lifetime are its own (an hour of slack for the clocks of the gate and the regions).
 */
const EARLIER_JOB_MARGIN_MS = 3_600_000;

/** The recorded entries of a job, or none when this listener keeps no history. */
export const readHistory = (history: HistoryStore | undefined, jobId: string) =>
  history ? history.read(jobId, HISTORY_READ_LIMIT) : Promise.resolve({ entries: [] as HistoryEntry[], truncated: false });

/**
 * The timing part of a history answer, shared by a region's and the gate's: the submission is read
 * off the job itself (its start and first deadline), everything later from the recorded entries.
 */
export function timedEntries(timing: Timing, recorded: { entries: HistoryEntry[]; truncated: boolean }, now: EpochMs) {
  const originalDeadline = timing.startedAt + secondsToMs(timing.timeoutSeconds);
  const own = recorded.entries.filter((entry) => entry.at >= timing.startedAt - EARLIER_JOB_MARGIN_MS);
  const entries = sortedByTime([{ kind: 'submitted' as const, at: timing.startedAt, deadlineAt: originalDeadline }, ...own]);
  return {
    startedAt: toIso(timing.startedAt),
    timeoutSeconds: timing.timeoutSeconds,
    originalDeadlineAt: toIso(originalDeadline),
    effectiveDeadlineAt: toIso(timing.effectiveDeadlineAt),
    ...(timing.timeoutReason !== undefined ? { timeoutReason: timing.timeoutReason } : {}),
    ...(timing.finishedAt !== undefined ? { finishedAt: toIso(timing.finishedAt) } : {}),
    now: toIso(now),
    truncated: recorded.truncated,
    entries: entries.map(historyEntryView),
  };
}
