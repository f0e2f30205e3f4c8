import type { Clock } from '../ports/clock.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { DueWakeUp } from '../ports/timers.js';
import { DETECTION_BOUND_MS } from './detection-bound.js';

/**
 * A sweep's watch on its own lateness: each decision wake-up whose fire ended later than its due time
 * plus `DETECTION_BOUND_MS` counts `SweptWakeUpPastBound`, which alarms at the first. The sweep was
 * behind: more fell due than one sweep ends within the bound's slack (`SWEEP_ENTRIES_WITHIN_BOUND`),
 * a backlog, a run that started late. A backed-off entry is due again from its back-off, so what
 * failing sweeps add is not counted here (it alarms as table throttles, and each back-off logs an
 * error); an outbox retry decides nothing.
 */
export class SweptPastBound {
  count = 0;
  worstLateMs = 0;

  constructor(
    private readonly clock: Clock,
    private readonly telemetry: Telemetry,
  ) {}

  /** `timer`'s fire has just ended, without error. */
  fired(timer: DueWakeUp): void {
    if (timer.outboxOnly) return;
    const lateMs = this.clock.now() - timer.dueAt;
    if (lateMs <= DETECTION_BOUND_MS) return;
    this.count++;
    this.worstLateMs = Math.max(this.worstLateMs, lateMs);
    this.telemetry.metric('SweptWakeUpPastBound');
  }
}
