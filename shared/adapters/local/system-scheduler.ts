import { systemClock, type Clock } from '../../ports/clock.js';
import { MAX_TIMEOUT_MS } from '../../ports/long-timeout.js';
import type { Scheduler } from '../../ports/scheduler.js';

/** The wall-clock `Scheduler`: one unref'd OS timer per callback (the process stays up for its listeners). */
export function systemScheduler(clock: Clock = systemClock): Scheduler {
  return {
    now: () => clock.now(),
    schedule(dueAt, task) {
      let handle: NodeJS.Timeout;
      // A callback later than setTimeout waits is re-checked against the clock when the longest wait elapses.
      const wait = () => {
        const waitMs = dueAt - clock.now();
        handle = waitMs > MAX_TIMEOUT_MS ? setTimeout(wait, MAX_TIMEOUT_MS) : setTimeout(() => void task(), Math.max(0, waitMs));
        handle.unref?.();
      };
      wait();
      return () => clearTimeout(handle);
    },
  };
}
