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

/** The recorded entries of a job, or none when this listener keeps no history. */
export const readHistory = (history: HistoryStore | undefined, jobId: string) =>
  history ? history.read(jobId, HISTORY_READ_LIMIT) : Promise.resolve({ entries: [] as HistoryEntry[], truncated: false });

/**
 * The timing part of a history answer, shared by a region's and the gate's: the submission is read
 * off the job itself (its start and first deadline), everything later from the recorded entries.
 */
export function timedEntries(timing: Timing, recorded: { entries: HistoryEntry[]; truncated: boolean }, now: EpochMs) {
  const originalDeadline = timing.startedAt + secondsToMs(timing.timeoutSeconds);
  const entries = sortedByTime([{ kind: 'submitted' as const, at: timing.startedAt, deadlineAt: originalDeadline }, ...recorded.entries]);
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
