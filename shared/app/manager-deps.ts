import type { HistoryStore } from '../ports/history-store.js';
import type { DecisionContext } from '../domain/decision-context.js';
import type { TimeoutPolicy } from '../domain/policy.js';
import type { Clock } from '../ports/clock.js';
import type { EventBus } from '../ports/event-bus.js';
import type { JobStore } from '../ports/job-store.js';
import type { PoolStore } from '../ports/pool-store.js';
import type { Stopwatch } from '../ports/stopwatch.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { Timers } from '../ports/timers.js';
import type { PageCursors } from './page-cursors.js';
import type { WorkflowTokens } from './workflow-tokens.js';

/** Everything a region manager's use case needs, wired once per process (Lambda module scope). */
export interface ManagerDeps {
  region: string;
  managerId: string;
  jobs: JobStore;
  /** Agent fleets: pools and their items, on the same regional table. */
  pools: PoolStore;
  timers: Timers;
  bus: EventBus;
  clock: Clock;
  policy: TimeoutPolicy;
  tokens: WorkflowTokens;
  /** Seals the page cursors of listings that read partitions every tenant shares (same secret as `tokens`). */
  cursors: PageCursors;
  telemetry: Telemetry;
  /** The decision history and jobs list (the console's view); absent, nothing is recorded. */
  history?: HistoryStore;
  /** Waits between attempts after a lost conditional write (`contention-backoff.ts`); absent, retries at once. */
  backoff?: (attempt: number) => Promise<void>;
  /** Running items one chunk of a pool's pass reaches (a stop's wake pass, a checkpoint collection: `pools/running-items-pass.ts`); absent, `PASS_CHUNK`. */
  passChunk?: number;
  /** Real time for the sweep's limits and its retries' pauses (`sweep-due-timers.ts`); absent, the system's. */
  stopwatch?: Stopwatch;
}

export const decisionContext = (deps: Pick<ManagerDeps, 'clock' | 'policy' | 'managerId'>): DecisionContext => ({
  now: deps.clock.now(),
  policy: deps.policy,
  managerId: deps.managerId,
});
