import type { EpochMs } from '../../domain/time.js';

/** A one-time Scheduler expression in UTC: `at(yyyy-mm-ddThh:mm:ss)`, no milliseconds, no zone suffix. */
export function atExpression(at: EpochMs): string {
  return `at(${new Date(at).toISOString().slice(0, 19)})`;
}
