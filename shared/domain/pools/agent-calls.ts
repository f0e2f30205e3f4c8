import { AgentCompleted } from '../../events/pools/agent-completed.js';
import { sameJson } from '../same-json.js';
import { metric, publish, type Decision, type Effect } from '../effects.js';
import type { VigilError } from '../errors.js';
import { msToSeconds, toIso, type EpochMs } from '../time.js';
import { advanceAttempt, type PoolForAttempts } from './advance-attempt.js';
import { attemptEventFields } from './attempt-events.js';
import { updateHistoryEntry, withExecution, withLateResult } from './item-history.js';
import { itemDecision } from './item-wake-up.js';
import type { CallStep } from './call-step.js';
import { finishCommand, startCommand } from './command-calls.js';
import { AttemptTerminatingError, StaleAttemptError } from './pool-errors.js';
import type { Pool } from './pool.js';
import { ITEM_BOUNDS, type AttemptRun, type PoolItem } from './pool-item.js';
import { givenBackFate, resolveAttempt, settles, withFollowUp } from './resolve-attempt.js';

export type AgentCall =
  | { type: 'heartbeat' }
  | { type: 'command_start'; index: number; commandType: string }
  | { type: 'command_finish'; index: number; outcome: 'succeeded' | 'failed' }
  | { type: 'checkpoint'; state: unknown; progress?: number }
  | { type: 'complete'; outcome: 'succeeded' | 'failed'; result?: unknown }
  | { type: 'terminated'; cleanup: 'completed' | 'failed'; partialResult?: unknown };

export interface HeartbeatReply {
  action: 'continue' | 'checkpoint' | 'terminate';
  deadlineAt: string | null;
  terminateBy?: string;
}

/** The decision on one agent call: the new item, and either the answer or the refusal (written first: a refusal is recorded). */
export interface AgentCallDecision extends Decision<PoolItem> {
  reply: unknown;
  refusal?: VigilError;
}

const isoOrNull = (at: EpochMs | null | undefined): string | null => (typeof at === 'number' ? toIso(at) : null);

/** What a refused call carried, kept in its attempt's history as a late result. */
function carriedResult(call: AgentCall): { carries: boolean; result?: unknown } {
  if (call.type === 'complete') return { carries: true, result: { outcome: call.outcome, result: call.result } };
  if (call.type === 'terminated') return { carries: true, result: { cleanup: call.cleanup, partialResult: call.partialResult } };
  if (call.type === 'checkpoint') return { carries: true, result: { state: call.state, progress: call.progress } };
  if (call.type === 'command_finish') return { carries: true, result: { index: call.index, outcome: call.outcome } };
  return { carries: false };
}

/**
 * An agent's call, fenced by its attempt number. The attempt's due transitions are applied first
 * (the lazy check), so a result that arrives after its deadline loses to the timeout: of a
 * completion racing a timeout exactly one wins. A call from an older attempt is refused with
 * `stale_attempt` and kept in that attempt's history, never applied.
 */
export function decideAgentCall(item: PoolItem, pool: PoolForAttempts, attempt: number, call: AgentCall, now: EpochMs): AgentCallDecision {
  const advanced = advanceAttempt(item, pool, now);
  const step = onCall(advanced.item, pool, attempt, call, now);
  return {
    ...itemDecision(item, step.item, [...advanced.effects, ...step.effects], pool.config, now),
    reply: step.reply,
    ...(step.refusal ? { refusal: step.refusal } : {}),
  };
}

function refuse(item: PoolItem, attempt: number, call: AgentCall, now: EpochMs, refusal: VigilError): CallStep {
  const carried = carriedResult(call);
  if (!carried.carries) return { item, effects: [], reply: undefined, refusal };
  const recorded = withLateResult(item, attempt, call.type, carried.result, now);
  return { item: recorded, effects: [metric('StaleMessageRejected', { kind: 'pool_attempt' })], reply: undefined, refusal };
}

function onCall(item: PoolItem, pool: PoolForAttempts, attempt: number, call: AgentCall, now: EpochMs): CallStep {
  const run = item.run;
  if (attempt !== item.attempt) return refuse(item, attempt, call, now, new StaleAttemptError(item.itemId, attempt, item.attempt, false));
  if (!run) return onOverAttempt(item, attempt, call, now);
  if (run.terminating) return onTerminatingAttempt(item, run, pool, call, now);
  return onRunningAttempt(item, run, pool, call, now);
}

/** The latest attempt is over: its heartbeat keeps answering `terminate`; results are late. */
function onOverAttempt(item: PoolItem, attempt: number, call: AgentCall, now: EpochMs): CallStep {
  const entry = item.history.find((past) => past.attempt === attempt);
  const endedAt = entry?.endedAt ?? now;
  if (call.type === 'heartbeat') return { item, effects: [], reply: { action: 'terminate', deadlineAt: null, terminateBy: toIso(endedAt) } };
  // A complete sent again (its answer was lost) after it ended the attempt: answered as the first was.
  // One with another outcome or result is not a repeat: refused, its result kept as a late one.
  const repeatsCompletion = call.type === 'complete' && entry?.outcome === call.outcome && entry.resolution === undefined && sameJson(call.result, item.result);
  if (repeatsCompletion) return { item, effects: [], reply: { state: item.state } };
  if (call.type === 'terminated') {
    // Past the grace period (a runner's report after its SIGKILL): still answered, its partial result
    // kept as a late one. A repeat of the `terminated` that ended the attempt carried nothing new;
    // another partial result than the one kept is kept as a late one.
    const carried = carriedResult(call);
    const late = carried.carries && (entry?.resolution !== 'graceful' || !sameJson(call.partialResult, item.partialResult));
    return { item: late ? withLateResult(item, attempt, call.type, carried.result, now) : item, effects: [], reply: { state: item.state } };
  }
  return refuse(item, attempt, call, now, new StaleAttemptError(item.itemId, attempt, item.attempt, true));
}

function onTerminatingAttempt(item: PoolItem, run: AttemptRun, pool: Pick<Pool, 'status' | 'config'>, call: AgentCall, now: EpochMs): CallStep {
  const terminateBy = run.terminating?.terminateBy ?? now;
  switch (call.type) {
    case 'heartbeat':
      return { item, effects: [], reply: { action: 'terminate', deadlineAt: isoOrNull(run.agentDeadlineAt), terminateBy: toIso(terminateBy) } };
    case 'terminated': {
      const resolved = resolveAttempt(item, pool, 'graceful', now, {
        cleanup: call.cleanup,
        ...(call.partialResult !== undefined ? { partialResult: call.partialResult } : {}),
      });
      return { ...resolved, reply: { state: resolved.item.state } };
    }
    case 'checkpoint':
      return { item: withCheckpoint(item, run, call.state, call.progress, now), effects: [], reply: { state: item.state } };
    default:
      return refuse(item, run.attempt, call, now, new AttemptTerminatingError(item.itemId, run.attempt));
  }
}

function onRunningAttempt(item: PoolItem, run: AttemptRun, pool: Pick<Pool, 'config'>, call: AgentCall, now: EpochMs): CallStep {
  switch (call.type) {
    case 'heartbeat': {
      const asked = run.checkpointOpenUntil !== undefined || (run.collectUntil !== undefined && run.collectUntil > now);
      return { item, effects: [], reply: { action: asked ? 'checkpoint' : 'continue', deadlineAt: isoOrNull(run.agentDeadlineAt) } };
    }
    case 'command_start':
      return startCommand(item, run, pool.config, call.index, call.commandType, now);
    case 'command_finish':
      return finishCommand(item, run, call.index, call.outcome, now);
    case 'checkpoint':
      return { item: withCheckpoint(item, run, call.state, call.progress, now), effects: [], reply: { state: item.state } };
    case 'complete':
      return complete(item, run, call, now);
    case 'terminated':
      return stoppedUnasked(item, run, pool, call, now);
  }
}

function withCheckpoint(item: PoolItem, run: AttemptRun, state: unknown, progress: number | undefined, now: EpochMs): PoolItem {
  const { checkpointOpenUntil: _answered, collectUntil: _collected, ...rest } = run;
  const lastCheckpoint = { state, at: now, attempt: run.attempt, ...(progress !== undefined ? { progress } : {}) };
  const { collectionAnswer: keptAnswer, ...others } = item;
  const earlierAnswer = item.lastCheckpoint !== undefined && item.lastCheckpoint.at === item.collectionAnswerAt ? item.lastCheckpoint : keptAnswer;
  // The window is [start, collectUntil): at collectUntil the collection reads `done`, and stays so.
  if (run.collectUntil !== undefined && now < run.collectUntil) {
    // One answer's state is kept: an earlier collection's is remembered as answered, without its state.
    const replaced = earlierAnswer ? [...(item.replacedCollectionAnswers ?? []), { at: earlierAnswer.at, attempt: earlierAnswer.attempt }] : item.replacedCollectionAnswers;
    return {
      ...others,
      lastCheckpoint,
      collectionAnswerAt: now,
      ...(replaced ? { replacedCollectionAnswers: replaced.slice(-ITEM_BOUNDS.replacedCollectionAnswers) } : {}),
      run: rest,
    };
  }
  // A later checkpoint must not erase a collection's answer: it moves aside, where the collection's status reads it.
  return { ...others, lastCheckpoint, ...(earlierAnswer ? { collectionAnswer: earlierAnswer } : {}), run: rest };
}

function endRun(item: PoolItem, run: AttemptRun, outcome: 'succeeded' | 'failed' | 'cancelled', now: EpochMs): PoolItem {
  const { run: _over, ...rest } = item;
  return updateHistoryEntry(rest, run.attempt, (entry) => ({ ...entry, endedAt: now, outcome }));
}

/** Seed 003 §3 samples the execution time on completion only: a timed-out or given-back attempt does not pull the average toward the limit. */
function complete(item: PoolItem, run: AttemptRun, call: Extract<AgentCall, { type: 'complete' }>, now: EpochMs): CallStep {
  let next: PoolItem = endRun(item, run, call.outcome, now);
  const stats = withExecution(next.stats, now, msToSeconds(now - run.startedAt));
  next = { ...next, state: call.outcome, stats: { ...stats, agentsCompleted: stats.agentsCompleted + 1 } };
  if (call.result !== undefined) next = { ...next, result: call.result };
  if (settles(next.state)) next = withFollowUp(next, { type: 'check_pool_finished' });
  const effects: Effect[] = [
    publish(
      AgentCompleted.build({ ...attemptEventFields(item, run, now), outcome: call.outcome, durationSeconds: msToSeconds(now - run.startedAt) }),
    ),
    metric('AgentCompleted'),
  ];
  return { item: next, effects, reply: { state: next.state } };
}

/**
 * The agent stopped on its own (crash handler, operator): the item goes back to the pool for another
 * attempt, or to a human (givenBackFate). The attempt's end is published as every other end is (seed
 * 003 unregister_agent_timeout: AgentCompleted whenever a handle is removed), before the fate's own
 * events. Not an execution sample nor a completion count (seed 003 §3 samples completions only).
 */
function stoppedUnasked(item: PoolItem, run: AttemptRun, pool: Pick<Pool, 'config'>, call: Extract<AgentCall, { type: 'terminated' }>, now: EpochMs): CallStep {
  let next = endRun(item, run, 'cancelled', now);
  next = updateHistoryEntry(next, run.attempt, (entry) => ({ ...entry, resolution: 'graceful' }));
  if (call.partialResult !== undefined) next = { ...next, partialResult: call.partialResult };
  const fate = givenBackFate(next, pool.config, now);
  const ended = AgentCompleted.build({
    ...attemptEventFields(item, run, now),
    outcome: 'cancelled',
    durationSeconds: msToSeconds(now - run.startedAt),
    cleanup: call.cleanup,
    itemState: fate.item.state,
  });
  return { item: fate.item, effects: [publish(ended), ...fate.effects], reply: { state: fate.item.state } };
}
