import type { HistoryStore } from '../../ports/history-store.js';
import type { GatePolicy } from '../../domain/gate/gate-policy.js';
import type { Clock } from '../../ports/clock.js';
import type { EventBus } from '../../ports/event-bus.js';
import type { GateStore } from '../../ports/gate-store.js';
import type { RegionManagers } from '../../ports/region-managers.js';
import type { Stopwatch } from '../../ports/stopwatch.js';
import type { Telemetry } from '../../ports/telemetry.js';
import type { Timers } from '../../ports/timers.js';
import type { PageCursors } from '../page-cursors.js';

/** Everything a gate use case needs, wired once per process. */
export interface GateDeps {
  /** The region the gate runs in: the `gateRegion` of every job it submits. */
  gateRegion: string;
  gates: GateStore;
  regions: RegionManagers;
  timers: Timers;
  bus: EventBus;
  clock: Clock;
  policy: GatePolicy;
  telemetry: Telemetry;
  /** Seals the jobs list's page cursors (its days are shared by every tenant). */
  cursors: PageCursors;
  /** The decision history and jobs list (the console's view); absent, nothing is recorded. */
  history?: HistoryStore;
  /** Waits between attempts after a lost conditional write (`contention-backoff.ts`); absent, retries at once. */
  backoff?: (attempt: number) => Promise<void>;
  /** Real time for the sweep's limits and its retries' pauses (`sweep-due-timers.ts`); absent, the system's. */
  stopwatch?: Stopwatch;
}
