/** How soon an outbox is first retried after its publish failed (the sweep picks the wake-up up). */
export const OUTBOX_RETRY_MS = 30_000;
/** The retries double up to this: an hour-long bus outage costs a handful of attempts per item. */
export const OUTBOX_RETRY_CAP_MS = 15 * 60_000;

/** The wait before the next publish attempt after `failures` failed ones in a row (1 → 30 s). */
export const outboxRetryDelayMs = (failures: number): number =>
  Math.min(OUTBOX_RETRY_MS * 2 ** Math.max(0, failures - 1), OUTBOX_RETRY_CAP_MS);
