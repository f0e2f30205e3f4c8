import type { Decision, Effect } from '../effects.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../job-timer.js';
import { secondsToMs, type EpochMs } from '../time.js';
import type { PoolConfig } from './pool-config.js';
import { monitored } from './monitoring.js';
import { itemTimerId, type AttemptRun, type PoolItem } from './pool-item.js';
import { firstCommandDue } from './running-commands.js';

/** A crash between an item's write and its follow-ups is repaired this soon by its wake-up. */
export const FOLLOW_UP_RETRY_MS = 30_000;

/**
 * The one wake-up of an attempt (ARCHITECTURE, agent fleets): the earliest of the agent deadline,
 * the running commands' deadlines, the checkpoint window and the grace period's end.
 */
export function attemptWakeUpAt(run: AttemptRun, config: PoolConfig): EpochMs {
  if (run.terminating) return run.terminating.terminateBy;
  const candidates = [run.agentDeadlineAt, firstCommandDue(run, config)?.at, run.checkpointOpenUntil ?? run.nextCheckpointAt];
  return Math.min(...candidates.filter((at): at is EpochMs => typeof at === 'number'));
}

/**
 * How long after the decision that arms it any wake-up of an item of this pool can be due, at most:
 * what `wakeUpAt` can give never comes later than the attempt's checkpoint window (its next request,
 * one interval after the claim or the request before, or the end of an open one, a checkpoint timeout
 * after its request), the end of its grace period (from a moment already past) or a follow-up's retry.
 * The moments it counts from were reached by then, on the clock of whichever Lambda stamped them: the
 * allowance covers that clock running ahead. The pool's config never changes after it is created, so
 * this bounds every wake-up of the item's life, its earlier attempts' too: one armed further ahead
 * than SQS's 15 minutes, and so possibly still a schedule, is never hidden by later short ones.
 * An outbox's retry is at most RETRY_CAP_MS ahead, an SQS message too, and a wake-up delivered early
 * is armed again for its own time, sooner.
 */
export const itemWakeUpLeadBoundMs = (config: PoolConfig): number =>
  Math.max(
    secondsToMs(config.checkpoint_interval_secs),
    secondsToMs(config.checkpoint_timeout_secs),
    secondsToMs(config.timeout_config.cleanup_grace_period_secs),
    FOLLOW_UP_RETRY_MS,
  ) + CLOCK_SKEW_ALLOWANCE_MS;

function wakeUpAt(item: PoolItem, config: PoolConfig, now: EpochMs): EpochMs | undefined {
  const attempt = item.run ? attemptWakeUpAt(item.run, config) : undefined;
  const followUp = item.pending && item.pending.length > 0 ? now + FOLLOW_UP_RETRY_MS : undefined;
  if (attempt === undefined) return followUp;
  return followUp === undefined ? attempt : Math.min(attempt, followUp);
}

/** Sets the item's `timerDueAt` (the sparse timer index) and arms or disarms its durable timer to match. */
export function withWakeUp(before: PoolItem, after: PoolItem, config: PoolConfig, now: EpochMs): { item: PoolItem; effects: Effect[] } {
  const dueAt = wakeUpAt(after, config, now);
  const timerId = itemTimerId(after.poolId, after.itemId);
  if (dueAt === undefined) {
    const { timerDueAt: _gone, ...rest } = after;
    if (before.timerDueAt === undefined) return { item: rest, effects: [] };
    // Most pools' items only ever wake up within minutes (SQS delay messages, which cannot be withdrawn): saying so lets the adapter skip the call.
    // The wake-up to withdraw was armed under `before`'s attempt (only a claim, which arms one, changes it).
    const timer = { scope: 'pool' as const, jobId: timerId, fenceToken: before.attempt };
    return { item: rest, effects: [{ type: 'DisarmTimer', timer, armedAtMostMsAhead: itemWakeUpLeadBoundMs(config) }] };
  }
  const item = { ...after, timerDueAt: dueAt };
  if (before.timerDueAt === dueAt && before.attempt === after.attempt) return { item, effects: [] };
  return { item, effects: [{ type: 'ArmTimer', timer: { scope: 'pool', jobId: timerId, fenceToken: after.attempt, dueAt } }] };
}

/**
 * The decision that takes `before` to `after`: wake-up kept in step, and the very same object when
 * nothing changed, so the caller skips the write (`decideAndSave`).
 */
export function itemDecision(before: PoolItem, after: PoolItem, effects: Effect[], config: PoolConfig, now: EpochMs): Decision<PoolItem> {
  const timed = withWakeUp(before, after, config, now);
  if (timed.item === before || JSON.stringify(timed.item) === JSON.stringify(before)) return { state: before, effects: [] };
  return { state: timed.item, effects: monitored(config, [...effects, ...timed.effects]) };
}
