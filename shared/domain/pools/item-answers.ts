import { unchanged, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import { withWakeUp } from './item-wake-up.js';
import { agentLimitSeconds, type PoolConfig } from './pool-config.js';
import { ClarifiedInputTooLargeError, EscalationAnsweredError, ItemNotInDlqError, RetryConflictError, TimeoutNotIncreasedError } from './pool-errors.js';
import { ITEM_BOUNDS, type EscalationOption, type PoolItem } from './pool-item.js';
import { settles, withFollowUp } from './resolve-attempt.js';
import { storedBytes } from '../stored-size.js';

export interface EscalationAnswer {
  option: EscalationOption;
  timeoutSeconds?: number;
  clarification?: string;
  subtasks?: Array<{ itemId: string; input?: unknown }>;
}

/**
 * "Back with the text added to its input" (contract): an object input gains a `clarification` field,
 * and a later answer is appended to it, so no earlier text, the input's own or a human's, is lost.
 * An input that is not an object, or whose own `clarification` is not text, is kept whole inside
 * `{ input, clarification }`. Bounded: an answer that would grow the input past its bound is refused.
 */
function withClarification(item: PoolItem, clarification: string): unknown {
  const { input } = item;
  const isObject = input !== null && typeof input === 'object' && !Array.isArray(input);
  const earlier = isObject ? (input as Record<string, unknown>)['clarification'] : undefined;
  const clarified =
    !isObject || (earlier !== undefined && typeof earlier !== 'string')
      ? { input, clarification }
      : { ...input, clarification: earlier === undefined ? clarification : `${earlier}\n\n${clarification}` };
  const bytes = storedBytes(clarified);
  if (bytes > ITEM_BOUNDS.clarifiedInputBytes) throw new ClarifiedInputTooLargeError(item.itemId, bytes, ITEM_BOUNDS.clarifiedInputBytes);
  return clarified;
}

/**
 * A human's answer to an escalation (seed 002), applied at once; a second answer is refused.
 * `increase_timeout` sets the item's own limit and keeps its `timeoutCount` (contract), and only raises it.
 */
export function answerEscalation(item: PoolItem, escalationId: string, answer: EscalationAnswer, config: PoolConfig, now: EpochMs): Decision<PoolItem> {
  const escalation = item.escalation;
  if (!escalation || escalation.escalationId !== escalationId || escalation.status !== 'pending' || item.state !== 'escalated') {
    throw new EscalationAnsweredError(escalationId);
  }
  if (answer.option === 'increase_timeout') assertRaisesLimit(item, answer.timeoutSeconds ?? 0, config);
  // A body may carry every option's fields: the answer keeps its own option's only (a split's subtasks are what it created, and what keeps their ids reserved).
  const answered = {
    option: answer.option,
    at: now,
    ...(answer.option === 'increase_timeout' && answer.timeoutSeconds !== undefined ? { timeoutSeconds: answer.timeoutSeconds } : {}),
    ...(answer.option === 'clarify' && answer.clarification !== undefined ? { clarification: answer.clarification } : {}),
    ...(answer.option === 'split' && answer.subtasks ? { subtasks: answer.subtasks.map((task) => task.itemId) } : {}),
  };
  let next: PoolItem = { ...item, escalation: { ...escalation, status: 'answered', answer: answered } };
  switch (answer.option) {
    case 'increase_timeout':
      next = { ...next, state: 'available', reason: 'increase_timeout', limitSeconds: answer.timeoutSeconds ?? item.limitSeconds ?? 0 };
      break;
    case 'clarify':
      next = { ...next, state: 'available', reason: 'clarified', input: withClarification(item, answer.clarification ?? '') };
      break;
    case 'split':
      next = withFollowUp(
        { ...next, state: 'split', splitInto: (answer.subtasks ?? []).map((task) => task.itemId) },
        { type: 'create_items', items: (answer.subtasks ?? []).map((task) => ({ itemId: task.itemId, input: task.input ?? null })) },
      );
      break;
    case 'skip':
      next = { ...next, state: 'skipped' };
      break;
  }
  if (answer.option !== 'skip') next = withFollowUp(next, { type: 'reopen_pool' });
  if (settles(next.state)) next = withFollowUp(next, { type: 'check_pool_finished' });
  const timed = withWakeUp(item, next, config, now);
  return { state: timed.item, effects: timed.effects };
}

/** What an item's `reopen_pool` opened: a split's subtasks (new items), else the item itself (work again). */
export const itemsOpenedBy = (item: PoolItem): string[] => (item.state === 'split' ? [...(item.splitInto ?? [])] : [item.itemId]);

/**
 * The DLQ's redrive: the item is available again, with a new agent limit when one is given, and its pool runs again.
 * Sent again before the item is claimed, it is answered as the first when it asks for no limit or the
 * one the item has; another limit is refused, as another body under a pool's id is: applying it
 * could let a late resend of an earlier retry undo a later one.
 */
export function retryFromDlq(item: PoolItem, agentTimeoutSecs: number | undefined, config: PoolConfig, now: EpochMs): Decision<PoolItem> {
  if (item.state !== 'dlq') {
    if (item.state !== 'available' || item.reason !== 'redriven') throw new ItemNotInDlqError(item.itemId, item.state);
    if (agentTimeoutSecs !== undefined && agentTimeoutSecs !== item.limitSeconds) throw new RetryConflictError(item.itemId, agentTimeoutSecs, item.limitSeconds);
    return unchanged(item, 'already_redriven');
  }
  const redriven = withFollowUp(
    { ...item, state: 'available', reason: 'redriven', ...(agentTimeoutSecs !== undefined ? { limitSeconds: agentTimeoutSecs } : {}) },
    { type: 'reopen_pool' },
  );
  const timed = withWakeUp(item, redriven, config, now);
  return { state: timed.item, effects: timed.effects };
}

/**
 * A collection (seed 002 compaction) that began at `since` asks the running attempt for a checkpoint
 * until `until`. An attempt asked until then or later (the same chunk run again, a later collection)
 * or that answered since the collection began is not asked again, so a chunk run twice changes
 * nothing the first run did.
 */
export function askForCheckpoint(item: PoolItem, attempt: number, window: { since: EpochMs; until: EpochMs }): Decision<PoolItem> {
  const run = item.run;
  if (!run || run.attempt !== attempt || run.terminating) return unchanged(item, 'not_running');
  if (run.collectUntil !== undefined && run.collectUntil >= window.until) return unchanged(item, 'already_asked');
  if (item.lastCheckpoint?.attempt === attempt && item.lastCheckpoint.at >= window.since) return unchanged(item, 'already_answered');
  return { state: { ...item, run: { ...run, collectUntil: window.until } }, effects: [] };
}

/** Drops the follow-ups the app has carried out (they are idempotent, so a repeat is harmless). */
export function withFollowUpsDone(item: PoolItem, done: number, config: PoolConfig, now: EpochMs): Decision<PoolItem> {
  if (!item.pending || item.pending.length === 0) return unchanged(item, 'nothing_pending');
  const rest = item.pending.slice(done);
  const { pending: _done, ...without } = item;
  const next: PoolItem = rest.length > 0 ? { ...without, pending: rest } : without;
  const timed = withWakeUp(item, next, config, now);
  return { state: timed.item, effects: timed.effects };
}

/**
 * Seed 002's option is "increase timeout for this task". The item's own limit is a whole attempt's
 * (it replaces the pool's, and no command gets less): a number at or below what an agent's attempt
 * has now would cut the task, so it is refused. Under `per_command` an attempt has no limit of its
 * own, and any number adds one.
 */
function assertRaisesLimit(item: PoolItem, timeoutSeconds: number, config: PoolConfig): void {
  const current = agentLimitSeconds(config, 'agent', item.limitSeconds);
  if (current !== null && timeoutSeconds <= current) throw new TimeoutNotIncreasedError(item.itemId, timeoutSeconds, current);
}
