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

/**
 * No real time at all, for the simulator (`instantPauses(noRealTime)`): only pauses move the
 * stopwatch, and no limit cuts a fire short. A sweep's budget, its retries' pauses and its fires'
 * limits read in real time made a run depend on how fast the machine ran it (a stall of a few
 * seconds mid-sweep, a breakpoint, changed the trace); a seed must replay byte for byte.
 */
export const noRealTime: Stopwatch = {
  elapsedMs: () => 0,
  within: (work) => work,
  pause: async () => {},
};
