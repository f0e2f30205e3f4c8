/**
 * A worker's own callbacks (`onHeartbeatError`, `onCheckpointRequested`, …), run from the SDK's timers
 * and answers. Nobody awaits them: a throw, or a promise returned that rejects, would be an unhandled
 * rejection, which ends a Node process, and a throw would cut short the SDK's work after the callback.
 * Each fault is contained and told once per callback and handle, as a warning.
 */
export class CallbackFaults {
  private readonly told = new Set<string>();

  /** Runs `callback(...args)`; what it throws or rejects with is told, never thrown. */
  run<Args extends unknown[]>(name: string, callback: (...args: Args) => unknown, ...args: Args): void {
    try {
      const result = callback(...args);
      if (isThenable(result)) result.then(undefined, (fault: unknown) => this.tell(name, fault));
    } catch (fault) {
      this.tell(name, fault);
    }
  }

  private tell(name: string, fault: unknown): void {
    if (this.told.has(name)) return;
    this.told.add(name);
    const why = fault instanceof Error ? fault.message : String(fault);
    process.emitWarning(`${name} failed (${why}); the SDK goes on, and its later failures are not told again. Catch them inside the callback.`, {
      type: 'VigilWarning',
      code: 'VIGIL_CALLBACK_FAILED',
    });
  }
}

const isThenable = (value: unknown): value is PromiseLike<unknown> =>
  (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
