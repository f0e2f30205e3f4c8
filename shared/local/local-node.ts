import type { LocalDynamo } from '../adapters/local/dynalite-server.js';
import type { LocalTimers } from '../adapters/local/local-timers.js';

/** One node of the local cloud (a region manager or the gate): its wiring, timers, store and sweep. */
export interface LocalNode<Deps> {
  deps: Deps;
  timers: LocalTimers;
  dynamo: LocalDynamo;
  sweep(): Promise<void>;
  /**
   * Re-arms every wake-up stored from a previous run. Called once every node hears its events: an
   * overdue wake-up fires at once and publishes its leftover outbox, which a node not yet listening
   * would never receive.
   */
  resume(): Promise<void>;
  close(): Promise<void>;
}
