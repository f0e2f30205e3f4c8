import { TimeLimitError, type Stopwatch } from '../ports/stopwatch.js';
import type { DueWakeUp } from '../ports/timers.js';

/**
 * The entries one sweep tries a second time: decision wake-ups whose first fire failed (a throttled
 * write, a burst of lost races), in the order they failed, each no sooner than `pauseMs` after its
 * failure. An outbox retry is not among them (nothing waits on it but a publish), nor a fire cut at
 * its limit (it still runs), nor one whose pause would end past the budget.
 */
export class SweepRetries {
  private readonly waiting: Array<{ timer: DueWakeUp; atMs: number }> = [];
  private backedOff: Promise<void> | undefined;

  constructor(
    private readonly stopwatch: Stopwatch,
    private readonly pauseMs: number,
    private readonly budgetEndsAtMs: number,
  ) {}

  /** Takes `timer`, whose first fire failed with `error`, to try again if it is one to; false if not. */
  offer(timer: DueWakeUp, error: unknown): boolean {
    const atMs = this.stopwatch.elapsedMs() + this.pauseMs;
    if (timer.outboxOnly || error instanceof TimeLimitError || atMs >= this.budgetEndsAtMs) return false;
    this.waiting.push({ timer, atMs });
    return true;
  }

  /** The oldest retry, taken, if its pause is over; else the wait until it is; undefined when none is left. */
  next(): { timer: DueWakeUp } | { waitMs: number } | undefined {
    const [oldest] = this.waiting;
    if (!oldest) return undefined;
    const waitMs = oldest.atMs - this.stopwatch.elapsedMs();
    if (waitMs > 0) return { waitMs };
    this.waiting.shift();
    return { timer: oldest.timer };
  }

  /** The budget is spent: backs off, together and once, every retry not tried. */
  backOffLeft(backOff: (timer: DueWakeUp) => Promise<void>): Promise<void> {
    this.backedOff ??= Promise.all(this.waiting.splice(0).map(({ timer }) => backOff(timer))).then(() => undefined);
    return this.backedOff;
  }
}
