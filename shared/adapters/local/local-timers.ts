import type { Scheduler } from '../../ports/scheduler.js';
import type { TimerRef, TimerRequest, Timers } from '../../ports/timers.js';
import { MinHeap } from './min-heap.js';

/**
 * The `Timers` port for the embedded local cloud: an in-process heap with one scheduler callback (the
 * earliest due). Like an SQS delay message, an armed wake-up cannot be withdrawn: a re-arm adds another,
 * `disarm` is a no-op, and every one fires, so the lazy checks that drop them (`superseded_timer`,
 * `already_terminal`, `stale_timer`) run here as they do on AWS. It holds only what
 * is armed in this process; durability comes from the store's timer index, which the local cloud
 * re-arms from after a restart and the periodic sweep re-checks.
 */
export class LocalTimers implements Timers {
  private readonly heap = new MinHeap<TimerRequest>((timer) => timer.dueAt);
  private withdrawWakeUp: (() => void) | undefined;
  private wakeUpAt = Infinity;
  private stopped = false;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly fire: (timer: TimerRequest) => Promise<void>,
    private readonly onError: (error: unknown, timer: TimerRequest) => void,
  ) {}

  async arm(timer: TimerRequest): Promise<void> {
    this.heap.push(timer);
    this.schedule();
  }

  /** An armed wake-up, like a delayed SQS message, still arrives: the lazy check drops it. */
  async disarm(_timer: TimerRef): Promise<void> {}

  /** Wake-ups armed in this process that have not fired yet (for tests and the restart check). */
  get pending(): number {
    return this.heap.size;
  }

  stop(): void {
    this.stopped = true;
    this.withdrawWakeUp?.();
  }

  private schedule(): void {
    const next = this.heap.peek();
    if (this.stopped || !next || next.dueAt >= this.wakeUpAt) return;
    this.withdrawWakeUp?.();
    this.wakeUpAt = next.dueAt;
    this.withdrawWakeUp = this.scheduler.schedule(next.dueAt, () => this.fireDue());
  }

  /** Fires every due wake-up at once (they run concurrently, as SQS delivers them); settles when all have. */
  private fireDue(): Promise<unknown> {
    this.withdrawWakeUp = undefined;
    this.wakeUpAt = Infinity;
    if (this.stopped) return Promise.resolve();
    const now = this.scheduler.now();
    const fired: Array<Promise<void>> = [];
    for (let next = this.heap.peek(); next && next.dueAt <= now; next = this.heap.peek()) {
      const timer = next;
      this.heap.pop();
      fired.push(this.fire(timer).catch((error: unknown) => this.onError(error, timer)));
    }
    this.schedule();
    return Promise.all(fired);
  }
}
