/*
 * A call's timers on the global setTimeout, not AbortSignal.timeout or node:timers/promises: a test's
 * fake timers then drive a call's tries and waits, and a try that ends leaves no timer behind.
 */

/** A signal that aborts with `reason()` after `ms`, unless `clear()`ed first. */
export function abortAfter(ms: number, reason: () => Error): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(reason()), ms);
  // As AbortSignal.timeout: the try's socket keeps the process alive while it is needed, not this.
  timer.unref?.();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** Settles after `ms`, or at once when `signal` aborts; never rejects. */
export function waitUnlessAborted(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
