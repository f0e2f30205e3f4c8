import type { TimeoutStrategyType } from '../domain/job.js';
import type { TimeoutPolicy } from '../domain/policy.js';
import { sweptWakeUpDueAt } from './swept-back-off.js';
import { SWEEP_GRACE_MS } from './sweep-job-timers.js';

/**
 * The sweep-fired entries per region one sweep recovers within its time budget (`SWEEP_BUDGET_MS`):
 * `npm run bench -- --only sweep` measured about 3,700 (92 fires a second, 8 in flight, against
 * dynalite on a shared 2-core machine); this is that, rounded down. The bound below holds while no
 * more than this many entries fall overdue per region per interval. Past it a sweep ends with
 * entries left (`SweepDueLeft`, which alarms) and they drain at this many a minute: an entry behind
 * a backlog of B ends by the bound plus ceil(B / SWEEP_CAPACITY) × SWEEP_INTERVAL_MS.
 */
export const SWEEP_CAPACITY = 3_000;

/** How often the backstop sweep runs on AWS (`infra/constructs/backstop-sweep.ts`: every minute). */
export const SWEEP_INTERVAL_MS = 60_000;

/** What delivering and running a fired wake-up may take (a queue hop, a cold start, a retried write). */
export const DELIVERY_SLACK_MS = 5_000;

/**
 * The stated detection bound: a RUNNING local-authority job ends by its effective deadline (or its
 * stuck deadline) plus this, even when its own wake-up is lost, because the sweep fires every
 * wake-up overdue by more than its grace, once per interval, while at most `SWEEP_CAPACITY`
 * entries are due per region per interval (outbox retries are armed over SQS and sorted after
 * running jobs' entries, so a bus outage does not use it up), and while the decision's write
 * succeeds within one sweep's tries: its fire, or the retry `SWEEP_RETRY_PAUSE_MS` after it fails
 * (a throttled hot item, a burst of lost races). Each further sweep in which every try fails adds
 * what `boundWithFailingSweepsMs` says, and each sweep run that dies what `boundWithDeadSweepsMs`
 * says. A delivered wake-up ends it within a second or two. A deadline moved into the past (a retired
 * grant) is detected from that moment.
 */
export const DETECTION_BOUND_MS = SWEEP_INTERVAL_MS + SWEEP_GRACE_MS + DELIVERY_SLACK_MS;

/**
 * How long past its due time the timer queue may hold a wake-up and the decision it brings still
 * land within the bound: the bound less the `DELIVERY_SLACK_MS` it leaves to run that decision. A
 * wake-up held longer ends its job past the bound, unless the sweep fired it first, and then the
 * bound rests on the sweep alone (`SWEEP_CAPACITY`). The timer-queue lateness alarm watches this.
 */
export const QUEUED_WAKE_UP_LATENESS_LIMIT_MS = DETECTION_BOUND_MS - DELIVERY_SLACK_MS;

/**
 * The bound by strategy. A gate-coordinated manager reports its local timeout and waits for the gate
 * at most `gateFallbackSeconds`, re-reporting every `gateReportIntervalSeconds`, then acts alone.
 * Those are two decisions in sequence, each on its own wake-up, and either wake-up may be lost and
 * left to the sweep: the bound holds one `DETECTION_BOUND_MS` for each (long-sweep seed 8657 lost both).
 */
export const detectionBoundMs = (strategy: TimeoutStrategyType, policy: TimeoutPolicy): number =>
  strategy === 'local_authority'
    ? DETECTION_BOUND_MS
    : 2 * DETECTION_BOUND_MS + (policy.gateFallbackSeconds + policy.gateReportIntervalSeconds) * 1_000;

/**
 * The bound for a region where up to `indexEntries` sweep-fired entries may be due in one interval:
 * the stated bound while they fit one sweep (`SWEEP_CAPACITY`), else one interval more for each
 * further sweep it takes to drain them. The simulator checks this, so a plan bigger than one sweep's
 * capacity is held to what Vigil states for it, not to an unconditional 70 s.
 */
export const boundWithSweepBacklogMs = (boundMs: number, indexEntries: number): number =>
  boundMs + Math.max(0, Math.ceil(indexEntries / SWEEP_CAPACITY) - 1) * SWEEP_INTERVAL_MS;

/**
 * Sweep intervals from a sweep in which every try of a decision wake-up failed, the `failedSweeps`-th
 * in a row, to the next sweep that tries it: its back-off (`sweptWakeUpDueAt`) plus the grace, in
 * whole intervals. One while it is not yet taken for poison, then 2, 3, 5, 9 and at most 16.
 */
export const intervalsToNextTry = (failedSweeps: number): number =>
  Math.ceil((sweptWakeUpDueAt(failedSweeps, {}, 0, 0) + SWEEP_GRACE_MS) / SWEEP_INTERVAL_MS);

/**
 * The bound for a job whose decision failed in `failingSweeps` sweeps in a row (every try in each)
 * before one wrote it: each failing sweep adds the intervals to the next try. A throttle the retry
 * outlasts once costs one interval (130 s for local authority); two, two (190 s); from the third,
 * the entry is taken for poison and each failing sweep adds 2, 3, 5, 9, then 16 intervals.
 */
export const boundWithFailingSweepsMs = (boundMs: number, failingSweeps: number): number =>
  boundMs + Array.from({ length: failingSweeps }, (_, i) => intervalsToNextTry(i + 1)).reduce((sum, n) => sum + n * SWEEP_INTERVAL_MS, 0);

/**
 * The bound for a job whose region's sweep run died `deadSweeps` times once the job was overdue (the
 * Lambda killed before it fired the job's wake-up: a crash, before or between any of its writes). A
 * run is not retried (`infra/constructs/backstop-sweep.ts`): the next minute's covers what it left,
 * so each dead run adds one interval. No sweep can do better: a run dies before its first fire too.
 */
export const boundWithDeadSweepsMs = (boundMs: number, deadSweeps: number): number => boundMs + deadSweeps * SWEEP_INTERVAL_MS;
