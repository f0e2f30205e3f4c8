import { SWEEP_GRACE_MS } from '../../app/sweep-job-timers.js';
import { boundWithDeadSweepsMs } from './detection-bound.js';

/**
 * When each node's sweep runs died (the crash fault kills a run at any of its writes, or at its
 * first before it fired anything): the stated detection bound gives each run that died once an
 * entry was overdue one more interval (`boundWithDeadSweepsMs`).
 */
export class DeadSweeps {
  private readonly diedAt = new Map<string, number[]>();

  record(node: string, atMs: number): void {
    const runs = this.diedAt.get(node) ?? [];
    runs.push(atMs);
    this.diedAt.set(node, runs);
  }

  /** `boundMs` for a wake-up of `node` due at `dueAtMs`, with each of its sweep runs that died after it was overdue. */
  boundFor(node: string, dueAtMs: number, boundMs: number): number {
    const overdueFrom = dueAtMs + SWEEP_GRACE_MS;
    const died = (this.diedAt.get(node) ?? []).filter((atMs) => atMs >= overdueFrom).length;
    return boundWithDeadSweepsMs(boundMs, died);
  }
}
