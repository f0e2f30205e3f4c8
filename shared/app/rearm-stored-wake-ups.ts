import type { EpochMs } from '../domain/time.js';
import type { TimerRequest, Timers } from '../ports/timers.js';

/**
 * A restart of the local cloud: every wake-up the store still holds is armed again (overdue ones fire
 * at once). Returns what it armed.
 */
export async function rearmStoredWakeUps(
  store: { findDueTimers(dueBy: EpochMs, limit: number): Promise<TimerRequest[]> },
  timers: Pick<Timers, 'arm'>,
): Promise<TimerRequest[]> {
  const stored = await store.findDueTimers(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER);
  for (const timer of stored) await timers.arm(timer);
  return stored;
}
