import { describe, expect, it } from 'vitest';
import { boundWithFailingSweepsMs, DETECTION_BOUND_MS, intervalsToNextTry, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { retryDelayMs } from '../../../shared/app/retry-backoff.js';
import { POISON_AFTER_FAILING_SWEEPS, SWEEP_RETRY_MS, sweptWakeUpDueAt } from '../../../shared/app/swept-back-off.js';
import { SWEEP_GRACE_MS } from '../../../shared/app/sweep-job-timers.js';

const SWEPT_AT = 1_000_000;
const NOW = SWEPT_AT + 37_000;

describe('when a swept wake-up whose tries failed is next due', () => {
  it('a decision entry is due for the very next sweep, from the start of the one that failed it, until it has failed in three in a row', () => {
    // Act
    const dueAt = [1, 2].map((failedSweeps) => sweptWakeUpDueAt(failedSweeps, {}, SWEPT_AT, NOW));
    // Assess: however late in its sweep it failed, the next sweep (60 s on) fires what is 5 s overdue
    expect(POISON_AFTER_FAILING_SWEEPS).toBe(3);
    expect(dueAt).toEqual([SWEPT_AT + SWEEP_RETRY_MS, SWEPT_AT + SWEEP_RETRY_MS]);
    expect(SWEPT_AT + SWEEP_RETRY_MS).toBeLessThanOrEqual(SWEPT_AT + SWEEP_INTERVAL_MS - SWEEP_GRACE_MS);
  });

  it('a poison decision entry (three failing sweeps and more) backs off doubling, 60 s to 15 min, skipping sweeps', () => {
    // Act
    const delays = [3, 4, 5, 6, 7, 8].map((failedSweeps) => sweptWakeUpDueAt(failedSweeps, {}, SWEPT_AT, NOW) - SWEPT_AT);
    // Assess
    expect(delays).toEqual([60_000, 120_000, 240_000, 480_000, 900_000, 900_000]);
  });

  it('an outbox-only entry doubles from its first failure, from now, as before', () => {
    // Act
    const dueAt = [1, 2, 3].map((failedSweeps) => sweptWakeUpDueAt(failedSweeps, { outboxOnly: true }, SWEPT_AT, NOW));
    // Assess
    expect(dueAt).toEqual([NOW + retryDelayMs(1), NOW + retryDelayMs(2), NOW + retryDelayMs(3)]);
  });
});

describe('the detection bound with failing sweeps', () => {
  it('each failing sweep adds the intervals to the next try: 1, 1, then 2, 3, 5, 9 and at most 16', () => {
    // Act
    const intervals = [1, 2, 3, 4, 5, 6, 7, 8].map(intervalsToNextTry);
    const bounds = [0, 1, 2, 3].map((failingSweeps) => boundWithFailingSweepsMs(DETECTION_BOUND_MS, failingSweeps));
    // Assess
    expect(intervals).toEqual([1, 1, 2, 3, 5, 9, 16, 16]);
    expect(bounds).toEqual([70_000, 130_000, 190_000, 310_000]);
  });
});
