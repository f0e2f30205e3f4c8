import { CallbackFaults } from './callback-faults.js';

/**
 * The calls a handle has in flight, abandoned together by its `stop()` (a Vigil that accepts
 * connections and never answers must not keep the worker's process alive for them); calls made
 * after it go out as usual.
 */
export class CallsInFlight {
  private controller = new AbortController();

  constructor(private readonly faults: CallbackFaults = new CallbackFaults()) {}

  /** The signal for a call starting now. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Starts a call nobody awaits (a heartbeat): its failure goes to `onError`, unless `abandon` caused it.
   * Settles (never rejects) once the call has, even when `onError` throws (callback-faults.ts).
   */
  background(start: () => Promise<unknown>, onError: ((error: unknown) => void) | undefined): Promise<void> {
    const signal = this.signal;
    return start().then(
      () => undefined,
      (error: unknown) => {
        if (!signal.aborted && onError !== undefined) this.faults.run('onHeartbeatError', onError, error);
      },
    );
  }

  abandon(reason: Error): void {
    this.controller.abort(reason);
    this.controller = new AbortController();
  }
}

/** One signal aborted by whichever of `signals` aborts first. */
export function anySignal(first: AbortSignal, ...more: Array<AbortSignal | undefined>): AbortSignal {
  const given = [first, ...more.filter((signal): signal is AbortSignal => signal !== undefined)];
  return given.length === 1 ? first : AbortSignal.any(given);
}
