import { AgentStalled } from '../../events/pools/agent-stalled.js';
import { CheckpointMissed } from '../../events/pools/checkpoint-missed.js';
import { CheckpointRequested } from '../../events/pools/checkpoint-requested.js';
import { TimeoutOccurred } from '../../events/pools/timeout-occurred.js';
import { metric, publish, type Decision, type Effect } from '../effects.js';
import { msToSeconds, secondsToMs, toIso, type EpochMs } from '../time.js';
import { attemptEventFields } from './attempt-events.js';
import { updateHistoryEntry, withTimeoutStat } from './item-history.js';
import { itemDecision } from './item-wake-up.js';
import { countsTowardEscalation, MAX_STALL_THRESHOLD, type PoolConfig } from './pool-config.js';
import { poolIsStopped, type Pool } from './pool.js';
import type { AttemptRun, PoolItem, RunningCommand, TerminationReason, TimeoutInfo } from './pool-item.js';
import { resolveAttempt, withFollowUp, type ItemStep } from './resolve-attempt.js';
import { firstCommandDue } from './running-commands.js';

/**
 * After a long outage many windows can be overdue, each a request and a miss, until the stall ends
 * the attempt: a decision always gets that far, so an answer never rests on half the overdue windows.
 */
const MAX_STEPS = 2 * MAX_STALL_THRESHOLD + 8;

type Due =
  | { kind: 'agent_deadline'; at: EpochMs }
  | { kind: 'command_deadline'; at: EpochMs; command: RunningCommand }
  | { kind: 'checkpoint_missed'; at: EpochMs }
  | { kind: 'checkpoint_requested'; at: EpochMs };

/**
 * The attempt's next time-driven transition; ties go to deadlines first. Every running command keeps
 * its own deadline (seed 003 schedules each command's check and cancels none when the next starts):
 * the first of them is due, so starting the next command never lets an unfinished one outlive its limit.
 */
function nextDue(run: AttemptRun, config: PoolConfig): Due {
  const candidates: Due[] = [];
  if (run.agentDeadlineAt !== null) candidates.push({ kind: 'agent_deadline', at: run.agentDeadlineAt });
  const commandDue = firstCommandDue(run, config);
  if (commandDue) candidates.push({ kind: 'command_deadline', ...commandDue });
  if (run.checkpointOpenUntil !== undefined) candidates.push({ kind: 'checkpoint_missed', at: run.checkpointOpenUntil });
  else candidates.push({ kind: 'checkpoint_requested', at: run.nextCheckpointAt });
  return candidates.reduce((earliest, due) => (due.at < earliest.at ? due : earliest));
}

export type PoolForAttempts = Pick<Pool, 'status' | 'config' | 'finishedAt'>;

/**
 * Applies every time-driven transition of the latest attempt that is due by `now`, in time order and
 * each at the moment it was due: the pool stopping, agent and command deadlines, checkpoint windows
 * and misses, the grace period's end. Run on every wake-up and, lazily, before every agent call, so
 * neither an answer nor an outcome depends on whether a timer was on time: a deadline that passed
 * before the pool was cancelled is a timeout, and a grace period runs from the deadline.
 */
export function advanceAttempt(item: PoolItem, pool: PoolForAttempts, now: EpochMs): ItemStep {
  let current = item;
  const effects: Effect[] = [];
  const stoppedAt = poolIsStopped(pool) ? Math.min(pool.finishedAt ?? now, now) : undefined;
  for (let step = 0; step < MAX_STEPS; step++) {
    const run = current.run;
    if (!run) break;
    if (run.terminating) {
      if (now < run.terminating.terminateBy) break;
      const resolved = resolveAttempt(current, pool, 'force', run.terminating.terminateBy);
      current = resolved.item;
      effects.push(...resolved.effects);
      break;
    }
    const due = nextDue(run, pool.config);
    if (stoppedAt !== undefined && stoppedAt < due.at) {
      current = terminate(current, run, { kind: 'pool_stopped' }, pool.config, Math.max(stoppedAt, run.startedAt));
      continue;
    }
    if (due.at > now) break;
    const next = applyDue(current, run, due, pool.config, due.at);
    current = next.item;
    effects.push(...next.effects);
  }
  return { item: current, effects };
}

/** An item's wake-up (timer or sweep): whatever is due by `now`, and the next wake-up. */
export function onItemWakeUp(item: PoolItem, pool: PoolForAttempts, now: EpochMs): Decision<PoolItem> {
  const advanced = advanceAttempt(item, pool, now);
  return itemDecision(item, advanced.item, advanced.effects, pool.config, now);
}

function applyDue(item: PoolItem, run: AttemptRun, due: Due, config: PoolConfig, now: EpochMs): ItemStep {
  const fields = attemptEventFields(item, run, now);
  if (due.kind === 'checkpoint_requested') {
    const openUntil = due.at + secondsToMs(config.checkpoint_timeout_secs);
    const nextRun = { ...run, checkpointOpenUntil: openUntil, nextCheckpointAt: due.at + secondsToMs(config.checkpoint_interval_secs) };
    return { item: { ...item, run: nextRun }, effects: [publish(CheckpointRequested.build({ ...fields, answerBy: toIso(openUntil) }))] };
  }
  if (due.kind === 'checkpoint_missed') {
    // Seed 002 handle_checkpoint_timeout: a miss never moves the agent clock; a later checkpoint does not erase it.
    const { checkpointOpenUntil: _closed, ...open } = run;
    const misses = run.checkpointMisses + 1;
    const missed: PoolItem = { ...item, run: { ...open, checkpointMisses: misses } };
    const effects: Effect[] = [publish(CheckpointMissed.build({ ...fields, misses })), metric('CheckpointMissed')];
    if (misses < config.stall_threshold) return { item: missed, effects };
    const stalled = terminate(missed, { ...open, checkpointMisses: misses }, { kind: 'stall' }, config, now);
    const terminateBy = stalled.run?.terminating?.terminateBy ?? now;
    effects.push(publish(AgentStalled.build({ ...fields, misses, terminateBy: toIso(terminateBy) })), metric('AgentStalled'));
    return { item: stalled, effects };
  }
  return timeOut(item, run, timeoutInfo(run, due, now), config, now);
}

function timeoutInfo(run: AttemptRun, due: Extract<Due, { kind: 'agent_deadline' | 'command_deadline' }>, now: EpochMs): TimeoutInfo {
  if (due.kind === 'command_deadline') {
    const { command } = due;
    return { type: 'command', commandIndex: command.index, commandType: command.type, limitSeconds: command.limitSeconds, elapsedSeconds: msToSeconds(now - command.startedAt) };
  }
  return { type: 'agent', limitSeconds: run.agentLimitSeconds ?? 0, elapsedSeconds: msToSeconds(now - run.startedAt) };
}

function timeOut(item: PoolItem, run: AttemptRun, timeout: TimeoutInfo, config: PoolConfig, now: EpochMs): ItemStep {
  const action = config.timeout_config.timeout_action;
  let next: PoolItem = {
    ...item,
    timeoutCount: item.timeoutCount + (countsTowardEscalation(action) ? 1 : 0),
    stats: withTimeoutStat(item.stats, now, run.attempt, run.agentId, timeout),
  };
  next = updateHistoryEntry(next, run.attempt, (entry) => ({ ...entry, timeout }));
  next = terminate(next, run, { kind: 'timeout', timeout }, config, now);
  // `fail` fails the pool at the timeout itself (contract); the item's own fate waits for the resolution.
  if (action === 'fail') next = withFollowUp(next, { type: 'fail_pool', reason: `item ${item.itemId} timed out (timeout_action: fail)` });
  const terminateBy = next.run?.terminating?.terminateBy ?? now;
  return {
    item: next,
    effects: [
      publish(
        TimeoutOccurred.build({
          ...attemptEventFields(item, run, now),
          timeoutType: timeout.type,
          ...(timeout.commandIndex !== undefined ? { commandIndex: timeout.commandIndex } : {}),
          ...(timeout.commandType !== undefined ? { commandType: timeout.commandType } : {}),
          limitSeconds: timeout.limitSeconds,
          elapsedSeconds: timeout.elapsedSeconds,
          action,
          terminateBy: toIso(terminateBy),
        }),
      ),
      // No dimensions: the timeout-rate alarm divides it by AgentStarted; types are in GET …/metrics.
      metric('AgentTimedOut'),
    ],
  };
}

/**
 * Tells the attempt to stop: its heartbeat answers `terminate` until it says `terminated` or the grace period ends.
 * The grace period is the pool's `cleanup_grace_period_secs` (seed 003 §1: "Grace period for cleanup after
 * timeout", default 30). Seed 003's example `terminate_agent` waits `min(timeout_duration, 30)` instead,
 * ignoring that setting; we follow the stated setting over the example, so a pool's configured grace
 * applies whatever the attempt's limit.
 */
function terminate(item: PoolItem, run: AttemptRun, reason: TerminationReason, config: PoolConfig, now: EpochMs): PoolItem {
  const { checkpointOpenUntil: _noMoreRequests, collectUntil: _noCollection, ...rest } = run;
  const terminateBy = now + secondsToMs(config.timeout_config.cleanup_grace_period_secs);
  return { ...item, run: { ...rest, terminating: { reason, terminateBy, since: now } } };
}
