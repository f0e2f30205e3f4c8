import { describe, expect, it } from 'vitest';
import {
  boundAtSweepPositionMs,
  DETECTION_BOUND_MS,
  STATED_SWEEP_PACE,
  SWEEP_CAPACITY,
  SWEEP_ENTRIES_WITHIN_BOUND,
  SWEEP_FIRES_PER_SECOND,
  type SweepPace,
} from '../../../shared/app/detection-bound.js';
import { SWEEP_CONCURRENCY } from '../../../shared/app/sweep-job-timers.js';

/** What `npm run bench -- --only sweep` measured on a busy machine: 92 fires a second, 8 in flight. */
const MEASURED_PACE: SweepPace = { concurrency: SWEEP_CONCURRENCY, fireMs: (SWEEP_CONCURRENCY * 1_000) / 92 };

describe('the detection bound by a fire’s place in its sweep', () => {
  it('at the stated 75 fires a second, the first 368 fires of a sweep keep the 70 s bound, the 369th does not, and the 3,000th (its capacity) keeps 105 s', () => {
    // Assess
    expect([SWEEP_FIRES_PER_SECOND, STATED_SWEEP_PACE.concurrency]).toEqual([75, 8]);
    expect([SWEEP_ENTRIES_WITHIN_BOUND, SWEEP_CAPACITY]).toEqual([368, 3_000]);
    expect(boundAtSweepPositionMs(1)).toBe(DETECTION_BOUND_MS);
    expect(boundAtSweepPositionMs(SWEEP_ENTRIES_WITHIN_BOUND)).toBe(DETECTION_BOUND_MS);
    expect(boundAtSweepPositionMs(SWEEP_ENTRIES_WITHIN_BOUND + 1)).toBeGreaterThan(DETECTION_BOUND_MS);
    expect(boundAtSweepPositionMs(SWEEP_CAPACITY)).toBe(105_000);
  });

  it('at the measured 92 a second: 456 keep the bound, and the 3,000th ends 98 s after its deadline', () => {
    // Act
    const withinBound = Array.from({ length: 1_000 }, (_, i) => i + 1).filter((position) => boundAtSweepPositionMs(position, MEASURED_PACE) <= DETECTION_BOUND_MS);
    // Assess
    expect(withinBound.length).toBe(456);
    expect(Math.round(boundAtSweepPositionMs(SWEEP_CAPACITY, MEASURED_PACE) / 1_000)).toBe(98);
  });
});
