import { metric, publish, type Effect } from '../effects.js';
import { ItemDeadLettered } from '../../events/pools/item-dead-lettered.js';
import { TaskEscalated } from '../../events/pools/task-escalated.js';
import { TimeoutResolved } from '../../events/pools/timeout-resolved.js';
import { toIso, type EpochMs } from '../time.js';
import { attemptEventFields } from './attempt-events.js';
import { updateHistoryEntry } from './item-history.js';
import type { PoolConfig } from './pool-config.js';
import { poolIsStopped, type Pool } from './pool.js';
import { ESCALATION_OPTIONS, type FollowUp, type ItemState, type PoolItem, type Resolution, type TimeoutInfo } from './pool-item.js';

export interface ItemStep {
  item: PoolItem;
  effects: Effect[];
}

/** Leaving `running` for a state that no claim can take again: the pool may be done. */
export const settles = (state: ItemState): boolean => state !== 'available' && state !== 'running' && state !== 'escalated';

export const withFollowUp = (item: PoolItem, followUp: FollowUp): PoolItem => ({ ...item, pending: [...(item.pending ?? []), followUp] });

/**
 * The attempt that was told to terminate is over: `graceful` when the agent said `terminated` in
 * time, `force` when the grace period ended. Only now does the item's fate apply (contract). In a
 * pool stopped meanwhile, a fate that would go on (a retry, or a human asked whether to) waits in
 * the pool instead: nobody runs it, and a human would be asked about work that was cancelled.
 */
export function resolveAttempt(
  item: PoolItem,
  pool: Pick<Pool, 'status' | 'config' | 'finishedAt'>,
  resolution: Resolution,
  now: EpochMs,
  report: { cleanup?: 'completed' | 'failed'; partialResult?: unknown } = {},
): ItemStep {
  const run = item.run;
  if (!run?.terminating) return { item, effects: [] };
  const { config } = pool;
  // Stopped by the moment of the resolution (a late wake-up resolves an attempt at its grace end).
  const stopped = poolIsStopped(pool) && (pool.finishedAt === undefined || pool.finishedAt <= now);
  const reason = run.terminating.reason;
  const outcome = reason.kind === 'timeout' ? 'timed_out' : reason.kind === 'stall' ? 'stalled' : 'cancelled';
  const { run: _over, ...rest } = item;
  let next: PoolItem = updateHistoryEntry(rest, run.attempt, (entry) => ({ ...entry, endedAt: now, outcome, resolution }));
  if (report.partialResult !== undefined) next = { ...next, partialResult: report.partialResult };
  const effects: Effect[] = [];

  if (reason.kind === 'timeout') {
    const fate = timeoutFate(next, config, reason.timeout, now, stopped);
    next = fate.item;
    effects.push(...fate.effects);
  } else if (reason.kind === 'stall') {
    const fate = stallFate(next, config, now, stopped);
    next = fate.item;
    effects.push(...fate.effects);
  } else {
    next = waitsInStoppedPool(next);
  }
  if (settles(next.state)) next = withFollowUp(next, { type: 'check_pool_finished' });
  effects.unshift(
    publish(
      TimeoutResolved.build({
        ...attemptEventFields(item, run, now),
        resolution,
        reason: reason.kind,
        ...(report.cleanup ? { cleanup: report.cleanup } : {}),
        itemState: next.state,
      }),
    ),
  );
  return { item: next, effects };
}

/**
 * Seed 002 recover_stalled_agent: back to the pool; the miss counter lives on the attempt, so it is
 * cleared. The seed returns a stalled task to the pool every time, so an item that stalls every agent
 * would never end; a stall is a checkpoint timeout, so its repeats escalate at `timeout_escalation`
 * as timeouts do (seed 002 escalate_repeated_timeout).
 */
function stallFate(item: PoolItem, config: PoolConfig, now: EpochMs, stopped: boolean): ItemStep {
  const stalled: PoolItem = { ...item, stallCount: (item.stallCount ?? 0) + 1 };
  if (stopped) return { item: waitsInStoppedPool(stalled), effects: [] };
  if ((stalled.stallCount ?? 0) >= config.timeout_escalation) return escalate(stalled, now, 'stall');
  return { item: { ...stalled, state: 'available', reason: 'agent_stalled' }, effects: [] };
}

/**
 * An agent gave the item back unasked (`terminated` while nobody told it to stop: a crash handler,
 * an operator's Ctrl-C). The seeds return such an item to the pool; but an agent that gives it back
 * just before each deadline would keep it from ever ending with no timeout counted, so give-backs
 * are counted apart and escalate at `timeout_escalation` as stalls do.
 */
export function givenBackFate(item: PoolItem, config: PoolConfig, now: EpochMs): ItemStep {
  const givenBack: PoolItem = { ...item, returnCount: (item.returnCount ?? 0) + 1 };
  if ((givenBack.returnCount ?? 0) >= config.timeout_escalation) return escalate(givenBack, now, 'return');
  return { item: { ...givenBack, state: 'available', reason: 'agent_terminated' }, effects: [] };
}

function timeoutFate(item: PoolItem, config: PoolConfig, timeout: TimeoutInfo, now: EpochMs, stopped: boolean): ItemStep {
  const action = config.timeout_config.timeout_action;
  if (action === 'fail') return { item: { ...item, state: 'failed' }, effects: [] };
  if (action === 'skip') return { item: { ...item, state: 'skipped' }, effects: [] };
  if (stopped && (action === 'retry' || item.timeoutCount >= config.timeout_escalation)) return { item: waitsInStoppedPool(item), effects: [] };
  if (item.timeoutCount >= config.timeout_escalation) return escalate(item, now, 'timeout');
  if (action === 'retry') return { item: { ...item, state: 'available', reason: 'agent_timeout' }, effects: [] };
  // dlq and graceful_terminate: the DLQ keeps the history (every attempt and its timeout) and the partial result.
  return {
    item: { ...item, state: 'dlq' },
    effects: [
      publish(
        ItemDeadLettered.build({
          poolId: item.poolId,
          itemId: item.itemId,
          attempt: item.attempt,
          timeoutCount: item.timeoutCount,
          at: toIso(now),
          timeout: {
            timeoutType: timeout.type,
            ...(timeout.commandIndex !== undefined ? { commandIndex: timeout.commandIndex } : {}),
            ...(timeout.commandType !== undefined ? { commandType: timeout.commandType } : {}),
            limitSeconds: timeout.limitSeconds,
            elapsedSeconds: timeout.elapsedSeconds,
          },
        }),
      ),
      metric('ItemDeadLettered'),
    ],
  };
}

/**
 * Seed 002 escalate_repeated_timeout: the id names the pool, the item and the count, so it is stable;
 * an escalation for stalls counts them with an `s` (`pool~item~s3`), one for give-backs with an `r`
 * (`pool~item~r3`), so no two share an id.
 */
export const escalationIdOf = (poolId: string, itemId: string, count: number | `${'s' | 'r'}${number}`): string => `${poolId}~${itemId}~${count}`;

export function parseEscalationId(escalationId: string): { poolId: string; itemId: string } | undefined {
  const [poolId, itemId, count, ...extra] = escalationId.split('~');
  if (!poolId || !itemId || !count || extra.length > 0) return undefined;
  return { poolId, itemId };
}

const REPEATS = {
  timeout: { idCount: (item: PoolItem) => item.timeoutCount, what: (item: PoolItem) => `has timed out ${item.timeoutCount} times` },
  stall: {
    idCount: (item: PoolItem) => `s${item.stallCount ?? 0}` as const,
    what: (item: PoolItem) => `has stalled ${item.stallCount ?? 0} times (its agents stopped answering checkpoints)`,
  },
  return: {
    idCount: (item: PoolItem) => `r${item.returnCount ?? 0}` as const,
    what: (item: PoolItem) => `was given back unfinished ${item.returnCount ?? 0} times (its agents stopped on their own)`,
  },
};

function escalate(item: PoolItem, now: EpochMs, repeated: keyof typeof REPEATS): ItemStep {
  const escalationId = escalationIdOf(item.poolId, item.itemId, REPEATS[repeated].idCount(item));
  const what = REPEATS[repeated].what(item);
  const question = `Task ${item.itemId} ${what}. Possible causes: task too large, unclear requirements, or infrastructure issue. How should we proceed?`;
  const escalated: PoolItem = { ...item, state: 'escalated', escalation: { escalationId, question, askedAt: now, status: 'pending' } };
  return {
    item: withFollowUp(escalated, { type: 'index_escalation', escalationId }),
    effects: [
      publish(
        TaskEscalated.build({
          poolId: item.poolId,
          itemId: item.itemId,
          escalationId,
          timeoutCount: item.timeoutCount,
          ...(repeated === 'stall' ? { stallCount: item.stallCount ?? 0 } : {}),
          ...(repeated === 'return' ? { returnCount: item.returnCount ?? 0 } : {}),
          question,
          options: [...ESCALATION_OPTIONS],
          askedAt: toIso(now),
        }),
      ),
      metric('TaskEscalated'),
    ],
  };
}

const waitsInStoppedPool = (item: PoolItem): PoolItem => ({ ...item, state: 'available', reason: 'pool_stopped' });
