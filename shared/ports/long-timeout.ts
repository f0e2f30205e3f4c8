/**
 * The longest delay Node's setTimeout (and setInterval) waits: past it, it fires after 1 ms
 * (TimeoutOverflowWarning). About 24.8 days, while a user or Vigil may name up to a year (contract:
 * durations up to 31,536,000 s).
 */
export const MAX_TIMEOUT_MS = 2 ** 31 - 1;

export interface LongTimeout {
  /** Withdraws it; nothing happens when it already fired. */
  clear(): void;
}

/**
 * setTimeout for any delay: one longer than MAX_TIMEOUT_MS is waited in steps of at most that long,
 * so a year-long checkpoint interval or grace period waits instead of firing at once.
 * `ref: false` lets the process end while it waits (as `unref()`).
 */
export function setLongTimeout(callback: () => void, delayMs: number, options: { ref?: boolean } = {}): LongTimeout {
  let handle: ReturnType<typeof setTimeout> | undefined;
  let leftMs = Math.max(0, delayMs);
  const step = () => {
    const waitMs = Math.min(leftMs, MAX_TIMEOUT_MS);
    leftMs -= waitMs;
    handle = setTimeout(leftMs > 0 ? step : callback, waitMs);
    if (options.ref === false) handle.unref?.();
  };
  step();
  return { clear: () => clearTimeout(handle) };
}

/** `sleep` of node:timers/promises for any delay (see setLongTimeout); it keeps the process alive. */
export const sleepLong = (delayMs: number): Promise<void> => new Promise((resolve) => void setLongTimeout(resolve, delayMs));
