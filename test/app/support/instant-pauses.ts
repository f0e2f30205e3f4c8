import { systemStopwatch, type Stopwatch } from '../../../shared/ports/stopwatch.js';

/**
 * The system's stopwatch (real limits: dynalite answers in real time), except that a pause passes at
 * once and its time still counts: a sweep's retries run without a test waiting for them.
 */
export function instantPauses(real: Stopwatch = systemStopwatch): Stopwatch {
  let paused = 0;
  return {
    elapsedMs: () => real.elapsedMs() + paused,
    within: (work, limitMs, what) => real.within(work, limitMs, what),
    async pause(ms) {
      paused += ms;
    },
  };
}
