export interface PollOptions {
  /** What is awaited, for the timeout message; a function to report progress made. */
  what: string | (() => string);
  timeoutMs: number;
  intervalMs?: number;
}

/** Calls `probe` until it returns a value (not undefined) or the deadline passes. */
export async function pollUntil<T>(probe: () => Promise<T | undefined>, options: PollOptions): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() >= deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`Timed out after ${options.timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100));
  }
}
