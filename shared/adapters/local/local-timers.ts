import type { Clock } from '../../ports/clock.js';
import type { TimerRequest, Timers } from '../../ports/timers.js';
import { MinHeap } from './min-heap.js';

/** Node's setTimeout cannot wait longer than this; a later timer is re-checked when it elapses. */
const MAX_TIMEOUT_MS = 2_147_483_647;

const keyOf = (scope: TimerRequest['scope'], jobId: string) => `${scope}\u0000${jobId}`;

/**
 * The `Timers` port for the embedded local cloud: an in-process heap with one OS timer. It holds
 * only what is armed in this process; durability comes from the store's timer index, which
 * `recover()` reloads after a restart and the periodic sweep re-checks.
 */
export class LocalTimers implements Timers {
  private readonly heap = new MinHeap<TimerRequest>((timer) => timer.dueAt);
  /** The latest timer armed per job: an older heap entry for the same job is skipped. */
  private readonly latest = new Map<string, TimerRequest>();
  private wakeUp: NodeJS.Timeout | undefined;
  private wakeUpAt = Infinity;
  private stopped = false;

  constructor(
    private readonly clock: Clock,
    private readonly fire: (timer: TimerRequest) => Promise<void>,
    private readonly onError: (error: unknown, timer: TimerRequest) => void,
  ) {}

  async arm(timer: TimerRequest): Promise<void> {
    this.latest.set(keyOf(timer.scope, timer.jobId), timer);
    this.heap.push(timer);
    this.schedule();
  }

  async disarm(scope: TimerRequest['scope'], jobId: string): Promise<void> {
    this.latest.delete(keyOf(scope, jobId));
  }

  /** Armed timers in this process (for tests and the restart check). */
  get pending(): number {
    return this.latest.size;
  }

  stop(): void {
    this.stopped = true;
    if (this.wakeUp) clearTimeout(this.wakeUp);
  }

  private schedule(): void {
    const next = this.heap.peek();
    if (this.stopped || !next || next.dueAt >= this.wakeUpAt) return;
    if (this.wakeUp) clearTimeout(this.wakeUp);
    this.wakeUpAt = next.dueAt;
    this.wakeUp = setTimeout(() => this.fireDue(), Math.min(MAX_TIMEOUT_MS, Math.max(0, next.dueAt - this.clock.now())));
    this.wakeUp.unref?.();
  }

  private fireDue(): void {
    this.wakeUp = undefined;
    this.wakeUpAt = Infinity;
    const now = this.clock.now();
    for (let next = this.heap.peek(); next && next.dueAt <= now; next = this.heap.peek()) {
      this.heap.pop();
      const key = keyOf(next.scope, next.jobId);
      if (this.latest.get(key) !== next) continue;
      this.latest.delete(key);
      const timer = next;
      this.fire(timer).catch((error: unknown) => this.onError(error, timer));
    }
    this.schedule();
  }
}
