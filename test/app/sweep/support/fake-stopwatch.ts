import { TimeLimitError, type Stopwatch } from '../../../../shared/ports/stopwatch.js';

/**
 * The sweep's real time, faked. Each call the sweep limits (a fire, a back-off) costs `perCallMs`. Work
 * over memory (MemoryDynamo, the recording ports) settles within microtasks, so work still pending on
 * the next macrotask turn is hanging: it is cut as its limit would cut it, and the limit's time is spent (side by side with the others in flight).
 * A pause passes at once and its time is spent.
 */
export class FakeStopwatch implements Stopwatch {
  elapsed = 0;
  cut = 0;
  constructor(private readonly perCallMs = 0) {}

  elapsedMs(): number {
    return this.elapsed;
  }

  async pause(ms: number): Promise<void> {
    this.elapsed += ms;
  }

  within<T>(work: Promise<T>, limitMs: number, what: string): Promise<T> {
    this.elapsed += this.perCallMs;
    const startedAt = this.elapsed;
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      work.then(
        (value) => ((settled = true), resolve(value)),
        (error: unknown) => ((settled = true), reject(error)),
      );
      setImmediate(() => {
        if (settled) return;
        this.cut++;
        // Fires in flight together wait out their limits side by side.
        this.elapsed = Math.max(this.elapsed, startedAt + limitMs);
        reject(new TimeLimitError(what, limitMs));
      });
    });
  }
}
