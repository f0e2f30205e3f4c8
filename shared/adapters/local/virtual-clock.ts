import type { EpochMs } from '../../domain/time.js';
import type { Scheduler } from '../../ports/scheduler.js';
import { MinHeap } from './min-heap.js';

interface Entry {
  dueAt: EpochMs;
  seq: number;
  task: () => unknown;
  /** Withdrawn or already run: either way it never runs (again). */
  done: boolean;
}

/** More callbacks than this in one advance means work that re-schedules itself at the same instant forever. */
const MAX_CALLBACKS_PER_ADVANCE = 1_000_000;

/**
 * A `Scheduler` whose time moves only when a test (or `POST /_local/clock/advance`) says so. Advancing
 * runs every callback that falls due, earliest first (ties in scheduling order), each at its own due
 * time, and answers once the cloud is *settled*: no callback is due at the new time and none of the
 * work the callbacks started (timer handlers, bus deliveries, sweeps, and whatever they scheduled for
 * the same instant) is still in flight. Work a test starts itself (an HTTP call) is not tracked: the
 * test awaits it before advancing. Callbacks run one at a time, so a run is ordered by time alone.
 */
export class VirtualClock implements Scheduler {
  private current: EpochMs;
  private seq = 0;
  private waiting = 0;
  private readonly queue = new MinHeap<Entry>(
    (entry) => entry.dueAt,
    (entry) => entry.seq,
  );
  /** Advances run one after another: a second caller waits for the first to settle. */
  private advancing: Promise<unknown> = Promise.resolve();

  /** `onMoved`: told each new time before anything due at it runs (a local cloud records it, so a restart never goes back). */
  constructor(
    start: EpochMs,
    private readonly onMoved: (now: EpochMs) => void = () => undefined,
  ) {
    if (!Number.isFinite(start)) throw new RangeError(`a virtual clock starts at an epoch time in ms, got ${start}`);
    this.current = start;
  }

  now(): EpochMs {
    return this.current;
  }

  schedule(dueAt: EpochMs, task: () => unknown): () => void {
    const entry: Entry = { dueAt, seq: this.seq++, task, done: false };
    this.queue.push(entry);
    this.waiting++;
    return () => {
      if (entry.done) return;
      entry.done = true;
      this.waiting--;
    };
  }

  /** Callbacks waiting, due or not (withdrawn ones excluded). */
  get scheduled(): number {
    return this.waiting;
  }

  /** The due time of the earliest callback waiting, if any. */
  get nextDueAt(): EpochMs | undefined {
    this.dropWithdrawn();
    return this.queue.peek()?.dueAt;
  }

  /** Moves time forward by `ms` (see the class comment); answers the new time once settled. */
  advance(ms: number): Promise<EpochMs> {
    if (!Number.isFinite(ms) || ms < 0) return Promise.reject(new RangeError(`advance by a number of ms ≥ 0, got ${ms}`));
    // Time stays in whole milliseconds, as Date.now() is: stored times and the cursors made of them expect it.
    return this.serially(() => this.runUntil(this.current + Math.round(ms)));
  }

  /** Moves time forward to `at` (not before now); answers once settled. */
  advanceTo(at: EpochMs): Promise<EpochMs> {
    return this.serially(() => {
      if (!Number.isFinite(at) || Math.round(at) < this.current) throw new RangeError(`time never goes back: now is ${this.current}, asked for ${at}`);
      return this.runUntil(Math.round(at));
    });
  }

  /** Runs what is due now and waits for it: `advance(0)`. */
  settle(): Promise<EpochMs> {
    return this.advance(0);
  }

  private serially(run: () => Promise<EpochMs>): Promise<EpochMs> {
    const result = this.advancing.then(run);
    this.advancing = result.catch(() => undefined);
    return result;
  }

  private async runUntil(target: EpochMs): Promise<EpochMs> {
    const budget = { left: MAX_CALLBACKS_PER_ADVANCE };
    for (;;) {
      await this.runDue(budget);
      const next = this.nextDueAt;
      if (next === undefined || next > target) break;
      this.moveTo(next);
    }
    this.moveTo(target);
    await this.runDue(budget);
    return this.current;
  }

  private moveTo(at: EpochMs): void {
    if (at <= this.current) return;
    this.current = at;
    this.onMoved(at);
  }

  /** Runs every callback due at the current time, one at a time, each to completion. */
  private async runDue(budget: { left: number }): Promise<void> {
    for (let entry = this.popDue(); entry; entry = this.popDue()) {
      if (--budget.left < 0) throw new Error(`more than ${MAX_CALLBACKS_PER_ADVANCE} callbacks fell due in one advance: something re-schedules itself without moving time`);
      await entry.task();
    }
  }

  private popDue(): Entry | undefined {
    this.dropWithdrawn();
    const next = this.queue.peek();
    if (!next || next.dueAt > this.current) return undefined;
    this.queue.pop();
    next.done = true;
    this.waiting--;
    return next;
  }

  private dropWithdrawn(): void {
    while (this.queue.peek()?.done) this.queue.pop();
  }
}
