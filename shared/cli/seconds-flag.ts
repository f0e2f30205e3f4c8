import { UsageError } from './exit-codes.js';

/** A flag holding seconds (`--grace 2.5`): its fallback when absent; a UsageError naming it when not a number ≥ `min`. */
export function secondsFlag(flag: string, value: string | undefined, fallback: number, min: { above: number } | { atLeast: number } = { atLeast: 0 }): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  const ok = Number.isFinite(parsed) && ('above' in min ? parsed > min.above : parsed >= min.atLeast);
  if (!ok || value.trim() === '') {
    throw new UsageError(`--${flag} must be a number of seconds ${'above' in min ? `> ${min.above}` : `≥ ${min.atLeast}`}, not '${value}'.`);
  }
  return parsed;
}
