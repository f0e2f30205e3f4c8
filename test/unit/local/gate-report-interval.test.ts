import { describe, expect, it } from 'vitest';
import { localGateReportIntervalSeconds } from '../../../shared/local/gate-report-interval.js';

describe('the local managers report to the gate often enough for its stuck threshold', () => {
  it.each([
    [180, undefined, 10],
    [20, undefined, 10],
    [6, undefined, 3],
    [1, undefined, 0.5],
    [6, 1, 1],
  ])('--gate-stuck-threshold-seconds %s (report interval asked: %s) → every %s s', (threshold, asked, expected) => {
    expect(localGateReportIntervalSeconds(threshold, asked)).toBe(expected);
    expect(localGateReportIntervalSeconds(threshold, asked)).toBeLessThan(threshold);
  });
});
