import type { EpochMs } from '../domain/time.js';
import { RETRY_BASE_MS, retryDelayMs } from './retry-backoff.js';

/**
 * A decision wake-up whose tries in a sweep all failed is next due this long after that sweep
 * started. The next sweep starts 60 s after it and fires what is 5 s overdue, so the entry is due
 * for it with 25 s to spare for the schedule's jitter, and it sorts behind every entry of its shard
 * that fell due before it (the index reads a shard oldest first).
 */
export const SWEEP_RETRY_MS = RETRY_BASE_MS;

/**
 * Sweeps in a row whose tries of a decision wake-up all failed before it is taken for a poison entry
 * (or an outage) and its back-off doubles: 60 s, 120 s, … 15 min, skipping sweeps. Each sweep tries
 * it twice (`SWEEP_RETRY_PAUSE_MS` apart), each try with the SDK's 3 attempts: three sweeps are 18
 * attempts over more than two minutes. A throttle or a burst of lost races clears in seconds; what
 * outlasts that only takes the sweep's slots from the entries behind it. Below it, each failing
 * sweep adds one interval to the job's end (`boundWithFailingSweepsMs`): two minutes at most.
 */
export const POISON_AFTER_FAILING_SWEEPS = 3;

/**
 * When a swept wake-up is next due after failing in `failedSweeps` sweeps in a row. A decision entry:
 * from the start of the sweep that failed it (`sweptAt`), due for the next sweep until it is taken
 * for poison, then doubling. An outbox-only entry (nothing to decide, only events to publish again)
 * doubles from its first failure, from `now`.
 */
export function sweptWakeUpDueAt(failedSweeps: number, entry: { outboxOnly?: boolean }, sweptAt: EpochMs, now: EpochMs): EpochMs {
  if (entry.outboxOnly) return now + retryDelayMs(failedSweeps);
  if (failedSweeps < POISON_AFTER_FAILING_SWEEPS) return sweptAt + SWEEP_RETRY_MS;
  return sweptAt + retryDelayMs(failedSweeps - POISON_AFTER_FAILING_SWEEPS + 2);
}
