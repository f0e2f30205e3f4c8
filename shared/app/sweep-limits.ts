import { LOST_WAKE_UP_GRACE_MS } from '../domain/job-timer.js';

// The backstop sweep's limits (`sweep-due-timers.ts`); the detection bound is stated from them (`detection-bound.ts`).

/** Overdue by this much, a wake-up is presumed lost; until then its own delivery should arrive. */
export const SWEEP_GRACE_MS = LOST_WAKE_UP_GRACE_MS;
/** Overdue entries asked of the index at a time; the sweep asks again while it has time left. */
export const SWEEP_QUERY_BATCH = 200;
/** Fires in flight at once: each takes the next entry as soon as it ends (a pool, not groups). */
export const SWEEP_CONCURRENCY = 8;
/**
 * The sweep function runs at most 55 s (`infra/stacks/regional-handlers.ts`). It starts fires for
 * this long; a fire started last may then hold its slot `SWEEP_FIRE_LIMIT_MS` more and its back-off
 * `SWEEP_BACK_OFF_LIMIT_MS`: 40 + 8 + 5 s, inside the 55 s. What it leaves waits for the next sweep
 * (retries it had no time for are backed off alongside, from the first fire that ends after it).
 */
export const SWEEP_BUDGET_MS = 40_000;
/**
 * A fire that has not ended by then is abandoned (it runs on, unawaited) and its entry backed off,
 * so a call that hangs (a black-holed endpoint) holds one slot for 8 s instead of the whole sweep.
 * A fire is a handful of SDK calls, each cut at 2 s and tried up to 3 times (`aws-clients.ts`):
 * a slow one still ends in time; only a hang is cut.
 */
export const SWEEP_FIRE_LIMIT_MS = 8_000;
export const SWEEP_BACK_OFF_LIMIT_MS = 5_000;
/**
 * A decision wake-up whose fire failed is tried once more in the same sweep, after every entry the
 * sweep has still to fire and no sooner than this after the failure. The failure is the SDK's
 * third attempt: it already waited up to 1 s and then up to 2 s for a throttle (full jitter on a
 * 1 s base). DynamoDB meters an item's and a partition's throughput per second, so a throttle from a
 * burst of writes clears a second or two after the burst; 2 s is two fresh seconds, and when nothing
 * else is queued keeps first try, pause and retry (about 5 s in all) within the detection bound's
 * delivery slack. A fire cut at its limit is not tried again here: it still runs, and a hung
 * endpoint would only cost 8 s more.
 */
export const SWEEP_RETRY_PAUSE_MS = 2_000;
