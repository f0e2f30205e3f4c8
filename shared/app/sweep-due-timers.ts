import { LOST_WAKE_UP_GRACE_MS } from '../domain/job-timer.js';
import type { EpochMs } from '../domain/time.js';
import type { Clock } from '../ports/clock.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { TimerRequest } from '../ports/timers.js';
import { inBatches } from './in-batches.js';
import { RETRY_BASE_MS } from './retry-backoff.js';

/** Overdue by this much, a wake-up is presumed lost; until then its own delivery should arrive. */
export const SWEEP_GRACE_MS = LOST_WAKE_UP_GRACE_MS;
/**
 * Wake-ups fired per sweep. The sweep runs every minute, so this is the recovery capacity per region:
 * 200 lost wake-ups a minute (12,000 an hour); `npm run bench` measures how long a full batch takes.
 */
export const SWEEP_BATCH = 200;
export const SWEEP_CONCURRENCY = 8;
/** A wake-up whose fire failed is retried this long after, doubling per failure up to 15 minutes. */
export const SWEEP_RETRY_MS = RETRY_BASE_MS;

export interface SweepPorts {
  clock: Clock;
  telemetry: Telemetry;
  attributes: Record<string, unknown>;
  findDueTimers(dueBy: EpochMs, limit: number): Promise<TimerRequest[]>;
  fire(timer: TimerRequest): Promise<void>;
  backOff(timer: TimerRequest): Promise<void>;
}

/**
 * One sweep over a sparse timer index: fairly across shards (the query), each due wake-up fired, a
 * failing one backed off and logged so that it neither stops the sweep nor keeps its place.
 */
export async function sweepDueTimers(ports: SweepPorts, graceMs = SWEEP_GRACE_MS, batch = SWEEP_BATCH): Promise<{ fired: number }> {
  const due = await ports.findDueTimers(ports.clock.now() - graceMs, batch);
  let failed = 0;
  await inBatches(due, SWEEP_CONCURRENCY, async (timer) => {
    try {
      await ports.fire(timer);
    } catch (error) {
      failed++;
      ports.telemetry.error('swept wake-up failed; backing it off', { ...ports.attributes, jobId: timer.jobId, error: String(error) });
      await ports.backOff(timer);
    }
  });
  if (due.length > 0) ports.telemetry.info('sweep fired overdue timers', { ...ports.attributes, fired: due.length, failed });
  return { fired: due.length };
}
