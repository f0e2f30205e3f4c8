import { systemStopwatch, type Stopwatch } from '../../ports/stopwatch.js';

/**
 * The system's stopwatch (real limits: a store may answer in real time), except that a pause passes
 * at once and its time still counts: a sweep's retries run without waiting in real time. The
 * simulator runs each sweep at one simulated instant, so a real pause would only slow it down; the
 * tests wire it for the same reason.
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
