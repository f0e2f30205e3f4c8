/**
 * The calls a handle has in flight, abandoned together by its `stop()` (a Vigil that accepts
 * connections and never answers must not keep the worker's process alive for them); calls made
 * after it go out as usual.
 */
export class CallsInFlight {
  private controller = new AbortController();
  private callbackFaultTold = false;

  /** The signal for a call starting now. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /**
   * Starts a call nobody awaits (a heartbeat): its failure goes to `onError`, unless `abandon` caused it.
   * Settles (never rejects) once the call has, even when `onError` throws: nobody awaits it, so a throw
   * would be an unhandled rejection, which ends a Node process. Such a fault is told once, as a warning.
   */
  background(start: () => Promise<unknown>, onError: ((error: unknown) => void) | undefined): Promise<void> {
    const signal = this.signal;
    return start().then(
      () => undefined,
      (error: unknown) => {
        if (signal.aborted || onError === undefined) return;
        try {
          onError(error);
        } catch (fault) {
          this.tellCallbackFault(fault);
        }
      },
    );
  }

  private tellCallbackFault(fault: unknown): void {
    if (this.callbackFaultTold) return;
    this.callbackFaultTold = true;
    const why = fault instanceof Error ? fault.message : String(fault);
    process.emitWarning(`onHeartbeatError threw (${why}); the heartbeats go on, and its later throws are not told again. Catch inside the callback.`, {
      type: 'VigilWarning',
      code: 'VIGIL_HEARTBEAT_ERROR_CALLBACK_THREW',
    });
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
