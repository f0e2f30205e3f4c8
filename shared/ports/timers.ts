import type { EpochMs } from '../domain/time.js';

/**
 * A durable one-shot wake-up for one job. The job item itself records `timerDueAt`
 * (the sparse timer index), so the backstop sweep can always find an overdue job;
 * a Timers adapter only makes the wake-up arrive on time.
 */
export interface TimerRequest {
  /**
   * `job` for a region manager's job, `gate` for the gate's view of a job, `pool` for one attempt of
   * a pool item (then `jobId` is `poolId/itemId` and `fenceToken` the attempt number).
   */
  scope: 'job' | 'gate' | 'pool';
  jobId: string;
  fenceToken: number;
  dueAt: EpochMs;
}

/** An overdue entry of the sparse timer index, as the backstop sweep reads it. */
export interface DueWakeUp extends TimerRequest {
  /** A finished item's outbox retry (the index's outbox shards): swept after every decision entry. */
  outboxOnly?: boolean;
}

/** Which of an item's wake-ups: those armed at one fence token (a job's leader, a pool item's attempt). */
export type TimerRef = Pick<TimerRequest, 'scope' | 'jobId' | 'fenceToken'>;

export interface Timers {
  arm(timer: TimerRequest): Promise<void>;
  /**
   * Withdraws the wake-up armed at `timer`'s fence token if the adapter can; a wake-up left armed
   * still fires and is dropped by the lazy checks, so a caller need not fail when this does.
   * `armedAtMostMsAhead`: see `DisarmTimer`.
   */
  disarm(timer: TimerRef, armedAtMostMsAhead?: number): Promise<void>;
}
