import { systemClock, type Clock } from '../../ports/clock.js';
import type { Scheduler } from '../../ports/scheduler.js';

/** Node's setTimeout cannot wait longer than this; a later callback is re-checked when it elapses. */
const MAX_TIMEOUT_MS = 2_147_483_647;

/** The wall-clock `Scheduler`: one unref'd OS timer per callback (the process stays up for its listeners). */
export function systemScheduler(clock: Clock = systemClock): Scheduler {
  return {
    now: () => clock.now(),
    schedule(dueAt, task) {
      let handle: NodeJS.Timeout;
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
