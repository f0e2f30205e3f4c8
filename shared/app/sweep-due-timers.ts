import type { EpochMs } from '../domain/time.js';
import type { Clock } from '../ports/clock.js';
import { systemStopwatch, type Stopwatch } from '../ports/stopwatch.js';
import type { Telemetry } from '../ports/telemetry.js';
import type { DueWakeUp, TimerRequest } from '../ports/timers.js';
import { SWEEP_BACK_OFF_LIMIT_MS, SWEEP_BUDGET_MS, SWEEP_CONCURRENCY, SWEEP_FIRE_LIMIT_MS, SWEEP_GRACE_MS, SWEEP_QUERY_BATCH, SWEEP_RETRY_PAUSE_MS } from './sweep-limits.js';
import { SweepRetries } from './sweep-retries.js';
import { SweptPastBound } from './swept-past-bound.js';
import { sweptWakeUpDueAt } from './swept-back-off.js';

export { POISON_AFTER_FAILING_SWEEPS, SWEEP_RETRY_MS } from './swept-back-off.js';
export {
  SWEEP_BACK_OFF_LIMIT_MS,
  SWEEP_BUDGET_MS,
  SWEEP_CONCURRENCY,
  SWEEP_FIRE_LIMIT_MS,
  SWEEP_GRACE_MS,
  SWEEP_QUERY_BATCH,
  SWEEP_RETRY_PAUSE_MS,
} from './sweep-limits.js';

export interface SweepPorts {
  clock: Clock;
  telemetry: Telemetry;
  attributes: Record<string, unknown>;
  /** Due entries, running items' decisions before finished items' outbox retries (the index's shard sets). */
  findDueTimers(dueBy: EpochMs, limit: number): Promise<DueWakeUp[]>;
  fire(timer: TimerRequest): Promise<void>;
  /** Moves a wake-up the sweep could not fire to `dueAfter(the sweeps in a row that failed it)`. */
  backOff(timer: TimerRequest, dueAfter: (timerFailures: number) => EpochMs): Promise<void>;
}

export interface SweepOptions {
  graceMs?: number;
  queryBatch?: number;
  budgetMs?: number;
  fireLimitMs?: number;
  concurrency?: number;
  /** Real time for the budget and the limits (the `Clock` says what is due, and dates a fire's end against it). */
  stopwatch?: Stopwatch;
}

/**
 * One sweep over a sparse timer index. Every entry overdue by more than the grace when the sweep
 * starts is fired, in the index's order (decisions first, fair across shards), `SWEEP_CONCURRENCY`
 * at a time, querying again as the fires drain what it read, until none is left or the budget is
 * spent. A decision entry whose fire fails is tried once more after all of them (a throttle clears
 * in seconds); one that still fails, or was cut at its time limit, is backed off and logged, so it
 * neither stops the sweep nor keeps its place (`sweptWakeUpDueAt`: due again next sweep until it
 * fails in several in a row). A sweep that ends with due entries left counts `SweepDueLeft`, and
 * each decision whose fire ends past its due time plus the detection bound `SweptWakeUpPastBound`
 * (both alarm): the bound holds only while a sweep ends every fire within its slack
 * (`SWEEP_ENTRIES_WITHIN_BOUND`, `detection-bound.ts`).
 */
export async function sweepDueTimers(ports: SweepPorts, options: SweepOptions = {}): Promise<{ fired: number }> {
  const graceMs = options.graceMs ?? SWEEP_GRACE_MS;
  const queryBatch = options.queryBatch ?? SWEEP_QUERY_BATCH;
  const budgetMs = options.budgetMs ?? SWEEP_BUDGET_MS;
  const fireLimitMs = options.fireLimitMs ?? SWEEP_FIRE_LIMIT_MS;
  const stopwatch = options.stopwatch ?? systemStopwatch;
  const startedMs = stopwatch.elapsedMs();
  const inBudget = () => stopwatch.elapsedMs() - startedMs < budgetMs;
  const sweptAt = ports.clock.now();
  // Fixed at the start: a fired entry moves past it (a decision, a retry), so the sweep ends.
  const dueBy = sweptAt - graceMs;

  // An entry is read once per sweep: one still in the index (its fire abandoned and its back-off
  // not yet written, its retry pending, or a fire that moved nothing) must not be fired again behind it.
  const seen = new Set<string>();
  const queue: DueWakeUp[] = [];
  let exhausted = false;
  let queryError: unknown;
  let querying: Promise<void> | undefined;
  const refill = async (): Promise<void> => {
    try {
      // Asking for what was seen too reaches past the entries still standing at the head of a shard.
      const limit = queryBatch + seen.size;
      const found = await ports.findDueTimers(dueBy, limit);
      const fresh = found.filter((timer) => !seen.has(entryKey(timer)));
      for (const timer of fresh) seen.add(entryKey(timer));
      queue.push(...fresh);
      // Fewer than asked for: the index held no more due by `dueBy`, so no query is needed to know it.
      if (fresh.length === 0 || found.length < limit) exhausted = true;
    } catch (error) {
      queryError = error;
      exhausted = true;
    }
  };

  const backOff = (timer: DueWakeUp): Promise<void> =>
    stopwatch
      .within(
        ports.backOff(timer, (timerFailures) => sweptWakeUpDueAt(timerFailures, timer, sweptAt, ports.clock.now())),
        SWEEP_BACK_OFF_LIMIT_MS,
        `back-off of ${timer.jobId}`,
      )
      .catch((backOffError: unknown) =>
        ports.telemetry.error('swept wake-up not backed off; the next sweep fires it again', { ...ports.attributes, jobId: timer.jobId, error: String(backOffError) }),
      );
  const retries = new SweepRetries(stopwatch, SWEEP_RETRY_PAUSE_MS, startedMs + budgetMs);

  let fired = 0;
  let retried = 0;
  let failed = 0;
  const pastBound = new SweptPastBound(ports.clock, ports.telemetry);
  const fireOne = async (timer: DueWakeUp, retry: boolean): Promise<void> => {
    if (retry) retried++;
    else fired++;
    try {
      await stopwatch.within(ports.fire(timer), fireLimitMs, `swept wake-up of ${timer.jobId}`);
      pastBound.fired(timer);
    } catch (error) {
      failed++;
      if (!retry && retries.offer(timer, error)) {
        ports.telemetry.warn('swept wake-up failed; trying it again in this sweep', { ...ports.attributes, jobId: timer.jobId, error: String(error) });
        return;
      }
      ports.telemetry.error('swept wake-up failed; backing it off', { ...ports.attributes, jobId: timer.jobId, error: String(error) });
      if (inBudget()) await backOff(timer);
      // Past the budget, the retries left are backed off alongside this one, not after it: within the 40 + 8 + 5 s.
      else await Promise.all([backOff(timer), retries.backOffLeft(backOff)]);
    }
  };
  // Outbox retries wait for every decision fire in flight: a decision that finishes an item (a pool's
  // last item) publishes the outbox a retry of it would publish again.
  const decisionsInFlight = new Set<Promise<void>>();
  const fireDecision = (timer: DueWakeUp, retry: boolean): Promise<void> => {
    const fire = fireOne(timer, retry);
    decisionsInFlight.add(fire);
    return fire.finally(() => decisionsInFlight.delete(fire));
  };
  const worker = async (): Promise<void> => {
    while (inBudget()) {
      const timer = queue.shift();
      if (timer?.outboxOnly) {
        while (decisionsInFlight.size > 0) await Promise.all([...decisionsInFlight]);
        await fireOne(timer, false);
        continue;
      }
      if (timer) {
        await fireDecision(timer, false);
        continue;
      }
      if (!exhausted) {
        querying ??= refill().finally(() => (querying = undefined));
        await querying;
        continue;
      }
      const retry = retries.next();
      if (!retry) return;
      if ('waitMs' in retry) await stopwatch.pause(retry.waitMs);
      else await fireDecision(retry.timer, true);
    }
    await retries.backOffLeft(backOff);
  };
  await Promise.all(Array.from({ length: options.concurrency ?? SWEEP_CONCURRENCY }, worker));

  if (queryError !== undefined) throw queryError;
  if (queue.length > 0 || !exhausted) {
    // The budget ran out first: at least `queue.length` due entries wait for the next sweep.
    ports.telemetry.metric('SweepDueLeft');
    ports.telemetry.error('sweep budget spent with overdue wake-ups left; they wait for the next sweep', {
      ...ports.attributes,
      fired,
      retried,
      failed,
      leftAtLeast: queue.length,
      budgetMs,
    });
  }
  if (pastBound.count > 0) {
    ports.telemetry.error('sweep fired wake-ups later than their due time plus the detection bound', {
      ...ports.attributes,
      fired,
      pastBound: pastBound.count,
      worstLateMs: pastBound.worstLateMs,
    });
  }
  if (fired > 0) ports.telemetry.info('sweep fired overdue timers', { ...ports.attributes, fired, retried, failed });
  return { fired };
}

const entryKey = (timer: TimerRequest): string => `${timer.scope}:${timer.jobId}`;
