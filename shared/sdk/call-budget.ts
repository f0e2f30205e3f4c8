/**
 * How long one call to Vigil may still take, all its tries and the waits between them included
 * (`callBudgetMs`): a try's timeout is cut to what is left, and a wait that would leave no time for
 * the try after it is not waited. Without a budget a call is bounded by its tries alone.
 */
export class CallBudget {
  private readonly startedAtMs: number;

  constructor(
    readonly budgetMs: number | undefined,
    // Monotonic: a wall clock stepped back by NTP would stretch the budget.
    private readonly elapsedMs: () => number = () => performance.now(),
  ) {
    this.startedAtMs = elapsedMs();
  }

  leftMs(): number {
    return this.budgetMs === undefined ? Infinity : this.budgetMs - (this.elapsedMs() - this.startedAtMs);
  }

  /** The next try's timeout: the client's own, or what is left of the budget when that is less. */
  tryTimeoutMs(requestTimeoutMs: number): number {
    return Math.max(0, Math.min(requestTimeoutMs, this.leftMs()));
  }

  /** A try after waiting `waitMs` would still start within the budget. */
  allowsTryAfter(waitMs: number): boolean {
    return waitMs < this.leftMs();
  }
}

/**
 * A heartbeat's budget: until its successor comes due, but at least one whole try. Against a hung
 * Vigil a beat then holds no longer than one try or one interval; against one that answers, slowly,
 * later than the cadence (overloaded, not hung), every beat is still answered, one after another,
 * and still tells the caller to stop: a budget of the interval alone would cut each of them short.
 */
export const heartbeatBudgetMs = (intervalMs: number, requestTimeoutMs: number): number => Math.max(intervalMs, requestTimeoutMs);
