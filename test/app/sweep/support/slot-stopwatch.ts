import type { Clock } from '../../../../shared/ports/clock.js';
import { TimeLimitError, type Stopwatch } from '../../../../shared/ports/stopwatch.js';

/**
 * The sweep's real time, simulated with its fires side by side: a fire of `what` holds its slot
 * `durationMs(what)` (its work over memory settles within microtasks, then it ends once that much
 * time has passed), a pause holds its slot its length. Time moves on, to the earliest end waited
 * for, only once nothing else can run (on the next macrotask turn). Records when each call the
 * sweep limits started, in order, and when it ended.
 */
export class SlotStopwatch implements Stopwatch {
  readonly calls: Array<{ what: string; startedAtMs: number; endedAtMs?: number }> = [];
  private nowMs = 0;
  private readonly waiting: Array<{ atMs: number; wake: () => void }> = [];
  private moving = false;

  constructor(private readonly durationMs: (what: string) => number) {}

  elapsedMs(): number {
    return this.nowMs;
  }

  /** The wall clock of a sweep that starts at `startsAt`: it runs with this stopwatch. */
  clockFrom(startsAt: number): Clock {
    return { now: () => startsAt + this.nowMs };
  }

  pause(ms: number): Promise<void> {
    return this.until(this.nowMs + ms);
  }

  async within<T>(work: Promise<T>, limitMs: number, what: string): Promise<T> {
    const call: (typeof this.calls)[number] = { what, startedAtMs: this.nowMs };
    this.calls.push(call);
    const durationMs = this.durationMs(what);
    const endsAtMs = this.nowMs + Math.min(durationMs, limitMs);
    const settled = await work.then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    await this.until(endsAtMs);
    call.endedAtMs = this.nowMs;
    if (durationMs > limitMs) throw new TimeLimitError(what, limitMs);
    if ('error' in settled) throw settled.error;
    return settled.value;
  }

  private until(atMs: number): Promise<void> {
    return new Promise((wake) => {
      this.waiting.push({ atMs, wake });
      this.moveOnWhenIdle();
    });
  }

  private moveOnWhenIdle(): void {
    if (this.moving) return;
    this.moving = true;
    setImmediate(() => {
      this.moving = false;
      const next = this.waiting.reduce((earliest, entry) => (entry.atMs < earliest.atMs ? entry : earliest));
      this.waiting.splice(this.waiting.indexOf(next), 1);
      this.nowMs = Math.max(this.nowMs, next.atMs);
      next.wake();
      if (this.waiting.length > 0) this.moveOnWhenIdle();
    });
  }
}
