import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Real elapsed time, for limits on the work itself (how long a sweep keeps starting fires, how long
 * one fire may hold its slot), never for decisions: those read the `Clock`. Tests inject a fake.
 */
export interface Stopwatch {
  /** Monotonic milliseconds since some fixed point. */
  elapsedMs(): number;
  /** Settles as `work` does, or rejects with `TimeLimitError` once `limitMs` pass first; `work` itself runs on. */
  within<T>(work: Promise<T>, limitMs: number, what: string): Promise<T>;
  /** Settles once `ms` have passed (a retry's pause); the time counts in `elapsedMs`. */
  pause(ms: number): Promise<void>;
}

export class TimeLimitError extends Error {
  constructor(what: string, limitMs: number) {
    super(`${what} did not end within ${limitMs} ms`);
    this.name = 'TimeLimitError';
  }
}

export const systemStopwatch: Stopwatch = {
  elapsedMs: () => performance.now(),
  pause: (ms) => sleep(ms),
  within<T>(work: Promise<T>, limitMs: number, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new TimeLimitError(what, limitMs)), limitMs);
      // A pending limit must not keep a process (a test run, the local cloud's shutdown) alive.
      timer.unref?.();
    });
    return Promise.race([work, limit]).finally(() => clearTimeout(timer));
  },
};
