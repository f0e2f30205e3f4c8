import { z } from 'zod';

/** What the bench children tell test/bench/run.ts over IPC. */

export const timerLatenessResult = z.object({
  type: z.literal('result'),
  jobs: z.number(),
  spreadMs: z.number(),
  /** fired − due of each job's first wake-up, where the local cloud starts its handler. */
  localMs: z.array(z.number()),
  /** finishedAt − due, read back from the store: when the timeout was decided. */
  timedOutMs: z.array(z.number()),
  /** Acknowledged − due of the write that stored TIMED_OUT: when it was in DynamoDB. */
  timedOutAckMs: z.array(z.number()),
  /** Acknowledged − fired: a job's wake-up handler starting to its TIMED_OUT write being stored. */
  handledMs: z.array(z.number()),
  /** Bare setTimeouts for the same due times, armed beside the cloud in the same process. */
  bareSameRunMs: z.array(z.number()),
  /** Bare setTimeouts for the same schedule on an idle event loop, before the cloud starts. */
  bareIdleMs: z.array(z.number()),
  /**
   * The raw write at that load (1,000 writes over 3 s): for each due time of the same schedule, one
   * conditional UpdateItem on dynalite as the local cloud runs it (on disk, its own thread), before
   * the cloud starts; write acknowledged − due.
   */
  rawWriteMs: z.array(z.number()),
  /** Jobs whose submission returned after their own due time (their lateness is not the timer's). */
  armedLate: z.number(),
  notTimedOut: z.number(),
  submitSeconds: z.number(),
  /** DynamoDB requests by operation and item writes while the timers fired (submissions and read-back excluded). */
  firingRequests: z.record(z.string(), z.number()),
  firingItemWrites: z.record(z.string(), z.number()),
  /** Those requests over the burst, from the first due time to the last TIMED_OUT stored. */
  burstRequestsPerSecond: z.number(),
});
export type TimerLatenessResult = z.infer<typeof timerLatenessResult>;

export const progressCloudReady = z.object({ type: z.literal('ready'), regionUrl: z.string() });

export const consoleCloudReady = z.object({ type: z.literal('ready'), gateUrl: z.string(), regionUrl: z.string() });

/** DynamoDB requests the progress cloud's region made, by operation; batch writes count their items. */
export const progressCloudCounts = z.object({
  type: z.literal('counts'),
  requests: z.record(z.string(), z.number()),
  itemWrites: z.record(z.string(), z.number()),
  conditionalFailures: z.number(),
  /** The child's CPU time so far (user + system), in microseconds. */
  cpuMicros: z.number(),
});
export type DynamoCounts = z.infer<typeof progressCloudCounts>;

export type ParentMessage = { type: 'counts' };
export const parentMessage = z.object({ type: z.literal('counts') });
