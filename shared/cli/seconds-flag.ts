import { MAX_DURATION_SECONDS } from '../domain/time.js';
import { UsageError } from './exit-codes.js';

/**
 * A flag holding seconds (`--grace 2.5`): its fallback when absent; a UsageError naming it and its
 * range when not a number ≥ `min` (or > it) and at most one year, the longest duration Vigil names
 * (a `--grace 1e300` is no wait the group guard can count in its whole steps).
 */
export function secondsFlag(flag: string, value: string | undefined, fallback: number, min: { above: number } | { atLeast: number } = { atLeast: 0 }): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  const ok = value.trim() !== '' && ('above' in min ? parsed > min.above : parsed >= min.atLeast) && parsed <= MAX_DURATION_SECONDS;
  if (!ok) {
    const from = 'above' in min ? `> ${min.above}` : `≥ ${min.atLeast}`;
    throw new UsageError(`--${flag} must be a number of seconds ${from} and ≤ ${MAX_DURATION_SECONDS} (one year), not '${value}'.`);
  }
  return parsed;
}
