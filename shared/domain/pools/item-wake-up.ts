import type { Decision, Effect } from '../effects.js';
import type { EpochMs } from '../time.js';
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
    return { item: rest, effects: before.timerDueAt === undefined ? [] : [{ type: 'DisarmTimer', scope: 'pool', jobId: timerId }] };
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
