import type { TimeoutStrategyType } from '../domain/job.js';
import type { TimeoutPolicy } from '../domain/policy.js';
import { sweptWakeUpDueAt } from './swept-back-off.js';
import { SWEEP_BUDGET_MS, SWEEP_CONCURRENCY, SWEEP_GRACE_MS, SWEEP_RETRY_PAUSE_MS } from './sweep-limits.js';

/** How often the backstop sweep runs on AWS (`infra/constructs/backstop-sweep.ts`: every minute). */
export const SWEEP_INTERVAL_MS = 60_000;

/** What delivering and running a fired wake-up may take (a queue hop, a cold start, a retried write). */
export const DELIVERY_SLACK_MS = 5_000;

/**
 * The stated detection bound: a RUNNING local-authority job ends by its effective deadline (or its
 * stuck deadline) plus this, even when its own wake-up is lost, because the sweep fires every
 * wake-up overdue by more than its grace, once per interval, while at most
 * `SWEEP_ENTRIES_WITHIN_BOUND` entries are due per region per interval (past it, an entry's place in
 * its sweep adds what `boundAtSweepPositionMs` says; outbox retries are armed over SQS and sorted
 * after running jobs' entries, so a bus outage does not use it up), and while the decision's write
 * succeeds within one sweep's tries: its fire, or the retry `SWEEP_RETRY_PAUSE_MS` after it fails
 * (a throttled hot item, a burst of lost races), which lands behind the sweep's first fires
 * (`sweptRetryEndsWithinMs`). Each further sweep in which every try fails adds
 * what `boundWithFailingSweepsMs` says, and each sweep run that dies what `boundWithDeadSweepsMs`
 * says. A delivered wake-up ends it within a second or two. A deadline moved into the past (a retired
 * grant) is detected from that moment.
 */
export const DETECTION_BOUND_MS = SWEEP_INTERVAL_MS + SWEEP_GRACE_MS + DELIVERY_SLACK_MS;

/**
 * How long past its due time the timer queue may hold a wake-up and the decision it brings still
 * land within the bound: the bound less the `DELIVERY_SLACK_MS` it leaves to run that decision. A
 * wake-up held longer ends its job past the bound, unless the sweep fired it first, and then the
 * bound rests on the sweep alone (`SWEEP_ENTRIES_WITHIN_BOUND`). The timer-queue lateness alarm watches this.
 */
export const QUEUED_WAKE_UP_LATENESS_LIMIT_MS = DETECTION_BOUND_MS - DELIVERY_SLACK_MS;

/**
 * The fires a second one sweep is stated to keep up, per region: `npm run bench -- --only sweep`
 * measured 92 (8 in flight, against dynalite, on a shared and busy 2-core machine; 207 on a quiet
 * one), rounded down. The counts below derive from it, so they cannot drift from it.
 */
export const SWEEP_FIRES_PER_SECOND = 75;

/** How a sweep fires: `concurrency` fires in flight, each slot taking the next entry as its fire ends, none holding it longer than `fireMs`. */
export interface SweepPace {
  concurrency: number;
  fireMs: number;
}

/** The stated pace: `SWEEP_CONCURRENCY` in flight at `SWEEP_FIRES_PER_SECOND` (a fire holds its slot 107 ms). */
export const STATED_SWEEP_PACE: SweepPace = { concurrency: SWEEP_CONCURRENCY, fireMs: (SWEEP_CONCURRENCY * 1_000) / SWEEP_FIRES_PER_SECOND };

/**
 * How long after a sweep starts its `position`-th fire (1-based, in the order it starts them) has
 * ended: by then each slot has ended a fire every `fireMs` at least, so the first `concurrency` ×
 * ceil(position / concurrency) fires have all ended.
 */
export const sweptFireEndsWithinMs = (position: number, pace: SweepPace = STATED_SWEEP_PACE): number => Math.ceil(position / pace.concurrency) * pace.fireMs;

/** The most fires a sweep at `pace` has ended within `ms` of its start. */
const firesEndedWithin = (ms: number, pace: SweepPace = STATED_SWEEP_PACE): number => Math.floor(ms / pace.fireMs) * pace.concurrency;

/**
 * The sweep-fired entries per region one sweep ends within the `DELIVERY_SLACK_MS` the bound leaves
 * after its start (368): an entry overdue by its grace just after one sweep began waits a whole
 * interval for the next, so only these keep `DETECTION_BOUND_MS`; the rest of a full sweep end up to
 * its budget later (`boundAtSweepPositionMs`). `SweptWakeUpPastBound` counts a fire that ends past it.
 */
export const SWEEP_ENTRIES_WITHIN_BOUND = firesEndedWithin(DELIVERY_SLACK_MS);

/**
 * The sweep-fired entries per region one sweep ends within its time budget (`SWEEP_BUDGET_MS`): 3,000.
 * Past it a sweep ends with entries left (`SweepDueLeft`, which alarms) and they drain at this many a
 * minute: an entry behind a backlog of B is fired ceil((B + 1) / SWEEP_CAPACITY) − 1 intervals late,
 * at its place in that sweep.
 */
export const SWEEP_CAPACITY = firesEndedWithin(SWEEP_BUDGET_MS);

/**
 * How long after a sweep starts the `rank`-th decision it tries again (1-based) has ended, behind its
 * `firstFires`: a retry waits for every first fire and then its pause. The retries are counted one
 * after the other: a slot with nothing left to fire ends, so few may be left to them. Retries are
 * rare (a throttle, lost races); this keeps their bound simple rather than tight.
 */
export const sweptRetryEndsWithinMs = (firstFires: number, rank: number, pace: SweepPace = STATED_SWEEP_PACE): number =>
  sweptFireEndsWithinMs(firstFires, pace) + SWEEP_RETRY_PAUSE_MS + rank * pace.fireMs;

/**
 * The bound for a job whose lost wake-up is fired by the first sweep after its grace, in a fire that
 * ends `fireEndsWithinMs` after that sweep's start: the interval and the grace, then the slack, or
 * that end if it is later. An entry may have fallen due just after the sweep before started, so it
 * waited a whole interval; the sweep fires in the index's order (oldest first in each shard), and the
 * entries of a burst that fell due together are equally overdue: no order would end them sooner.
 */
export const boundOfSweptFireMs = (fireEndsWithinMs: number): number => SWEEP_INTERVAL_MS + SWEEP_GRACE_MS + Math.max(DELIVERY_SLACK_MS, fireEndsWithinMs);

/**
 * The bound for a job whose lost wake-up is the `position`-th fire of the first sweep after its grace
 * (at the stated pace, or at `pace`). The first `SWEEP_ENTRIES_WITHIN_BOUND` keep `DETECTION_BOUND_MS`;
 * the 3,000th (`SWEEP_CAPACITY`) keeps 105 s.
 */
export const boundAtSweepPositionMs = (position: number, pace: SweepPace = STATED_SWEEP_PACE): number => boundOfSweptFireMs(sweptFireEndsWithinMs(position, pace));

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
 * The bound for a region where up to `indexEntries` sweep-fired entries may be due in one interval,
 * in whole sweeps: the stated bound while they fit one sweep (`SWEEP_CAPACITY`), else one interval
 * more for each further sweep it takes to drain them. The simulator checks this, so a plan bigger
 * than one sweep's capacity is held to what Vigil states for it, not to an unconditional 70 s. Its
 * sweeps take no time; in real time a fire's place in its sweep adds what `boundAtSweepPositionMs`
 * says past the slack.
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
