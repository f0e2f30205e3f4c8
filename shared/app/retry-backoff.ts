/** The first retry of something that failed (an outbox publish, a wake-up's fire) waits this long. */
export const RETRY_BASE_MS = 30_000;
/** Retries double up to this: an hour-long outage costs a handful of attempts per item. */
export const RETRY_CAP_MS = 15 * 60_000;

/** The wait before the next attempt after `failures` failed ones in a row (1 → 30 s, 2 → 60 s, …). */
export const retryDelayMs = (failures: number): number => Math.min(RETRY_BASE_MS * 2 ** Math.max(0, failures - 1), RETRY_CAP_MS);
