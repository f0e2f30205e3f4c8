import type { EpochMs } from '../domain/time.js';
import type { Clock } from './clock.js';

/**
 * A clock that can also run a callback once it reads a given time: what the local cloud's wake-ups,
 * bus deliveries and sweep wait on. The system one follows the wall clock; a virtual one (tests) moves
 * only when told to, and then runs every callback that fell due, in order.
 */
export interface Scheduler extends Clock {
  /**
   * Runs `task` once the clock reads `dueAt` or later (at once if it already does). The answer
   * withdraws the callback if it has not run yet. A promise `task` returns is work in flight until it
   * settles; `task` reports its own failures (a rejection is a bug).
   */
  schedule(dueAt: EpochMs, task: () => unknown): () => void;
}
