import type { BusEvent } from '../../ports/event-bus.js';
import type { EpochMs } from '../time.js';
import type { AgentKind } from './pool-config.js';

export type ItemState = 'available' | 'running' | 'succeeded' | 'failed' | 'skipped' | 'dlq' | 'escalated' | 'split';
export type AttemptOutcome = 'succeeded' | 'failed' | 'timed_out' | 'stalled' | 'cancelled';
export type Resolution = 'graceful' | 'force';

export interface TimeoutInfo {
  type: 'agent' | 'command';
  commandIndex?: number;
  commandType?: string;
  limitSeconds: number;
  elapsedSeconds: number;
}

/** A call an older (or finished) attempt made: refused, kept so nothing is silently dropped. */
export interface LateResult {
  at: EpochMs;
  call: string;
  /** The result as sent when small; larger ones are kept as their size only (item ≤ 400 KB). */
  result?: unknown;
  resultBytes?: number;
}

export interface HistoryEntry {
  attempt: number;
  agentId: string;
  claimId?: string;
  startedAt: EpochMs;
  endedAt?: EpochMs;
  outcome?: AttemptOutcome;
  timeout?: TimeoutInfo;
  resolution?: Resolution;
  lateResults?: LateResult[];
  lateResultsDropped?: number;
}

export interface RunningCommand {
  index: number;
  type: string;
  limitSeconds: number;
  startedAt: EpochMs;
}

/** Why the latest attempt is being stopped: it decides the item's fate once the attempt resolves. */
export type TerminationReason =
  | { kind: 'timeout'; timeout: TimeoutInfo }
  | { kind: 'stall' }
  | { kind: 'pool_stopped' };

/** The live part of the latest attempt. Removed when the attempt is over; its history entry stays. */
export interface AttemptRun {
  attempt: number;
  agentId: string;
  /** The claim that took it, when it named one: its repeats get this attempt. */
  claimId?: string;
  /** The next command index this attempt may start: commands start once each, in order. */
  nextCommandIndex?: number;
  kind: AgentKind;
  startedAt: EpochMs;
  agentDeadlineAt: EpochMs | null;
  agentLimitSeconds: number | null;
  /** Commands started and not finished, in start order (at most `ITEM_BOUNDS.runningCommands`); read through `runningCommands`. */
  commands?: RunningCommand[];
  /** The one running command of items written before several could run; read through `runningCommands`, never written. */
  command?: RunningCommand;
  /** Seed 002: requests open every interval from the claim; the agent clock never moves for them. */
  nextCheckpointAt: EpochMs;
  checkpointOpenUntil?: EpochMs;
  checkpointMisses: number;
  /** A checkpoint collection (seed 002 compaction) asked for one until then; not answering is no miss. */
  collectUntil?: EpochMs;
  terminating?: { reason: TerminationReason; terminateBy: EpochMs; since: EpochMs };
}

export interface Checkpoint {
  state: unknown;
  progress?: number;
  at: EpochMs;
  attempt: number;
}

export interface Escalation {
  escalationId: string;
  question: string;
  askedAt: EpochMs;
  status: 'pending' | 'answered';
  answer?: { option: EscalationOption; at: EpochMs; timeoutSeconds?: number; clarification?: string; subtasks?: string[] };
}
export const ESCALATION_OPTIONS = ['split', 'clarify', 'increase_timeout', 'skip'] as const;
export type EscalationOption = (typeof ESCALATION_OPTIONS)[number];

/** Work the app does after the item's write; kept on the item until done, so a crash loses none. */
export type FollowUp =
  | { type: 'fail_pool'; reason: string }
  | { type: 'check_pool_finished' }
  | { type: 'index_escalation'; escalationId: string }
  | { type: 'create_items'; items: Array<{ itemId: string; input: unknown }> }
  /** The item is work again (a redrive, an answer): a COMPLETED pool runs again. After the item's write, so no count in between finishes the pool again. */
  | { type: 'reopen_pool' };

/** Per-item counters for the pool's metrics (seed 003 §3), bounded; the pool sums them by query. */
export interface ItemStats {
  agentsStarted: number;
  agentsCompleted: number;
  timeoutsByType: { agent: number; command: Record<string, number> };
  /** The last few finished attempts: (end, seconds) for the pool's average over its last 100 agents. */
  recentExecutions: Array<{ at: EpochMs; seconds: number }>;
  recentTimeouts: Array<{ at: EpochMs; attempt: number; agentId: string } & TimeoutInfo>;
}

export interface PoolItem {
  poolId: string;
  itemId: string;
  input: unknown;
  state: ItemState;
  /** The fence: the number of the latest attempt (0 before the first claim). */
  attempt: number;
  timeoutCount: number;
  /** Attempts that stalled (missed `stall_threshold` checkpoints, counted per attempt, answered ones between them erasing none: seed 002); absent on items from before it was kept. */
  stallCount?: number;
  /** Attempts whose agent gave the item back unasked (`terminated` before any terminate); absent on items from before it was kept. */
  returnCount?: number;
  /** The item's own agent limit, set by a redrive or an `increase_timeout` answer. */
  limitSeconds?: number;
  /** Why the item is available again (`agent_stalled`, `agent_timeout`, …). */
  reason?: string;
  run?: AttemptRun;
  lastCheckpoint?: Checkpoint;
  /** When the latest checkpoint that answered a collection was given (it is `lastCheckpoint` until a later one replaces it). */
  collectionAnswerAt?: EpochMs;
  /** That answer, kept here once a later checkpoint replaced it as `lastCheckpoint`: the collection's status still reads it. */
  collectionAnswer?: Checkpoint;
  /** Collection answers whose state a later collection's answer replaced, newest last (bounded): their collections still count them. */
  replacedCollectionAnswers?: Array<{ at: EpochMs; attempt: number }>;
  result?: unknown;
  partialResult?: unknown;
  escalation?: Escalation;
  splitInto?: string[];
  history: HistoryEntry[];
  historyDropped?: number;
  /** Refused results of attempts whose history entry was already dropped (past `ITEM_BOUNDS.history`). */
  lateResultsDropped?: number;
  stats: ItemStats;
  pending?: FollowUp[];
  version: number;
  timerDueAt?: EpochMs;
  outbox?: BusEvent[];
}

/** Bounds that keep an item far below DynamoDB's 400 KB whatever agents send. */
export const ITEM_BOUNDS = {
  history: 20,
  lateResultsPerAttempt: 3,
  lateResultBytes: 1_024,
  recentExecutions: 10,
  recentTimeouts: 10,
  /** Distinct command types whose timeouts are counted by name (the rest together). */
  commandTypesCounted: 32,
  /** input, result, partialResult and checkpoint state, each as JSON and as stored (`storedBytes`). */
  payloadBytes: 32 * 1024,
  /** An item's input with every clarification a human added to it (each up to 4 KB). */
  clarifiedInputBytes: 40 * 1024,
  /** Collection answers remembered (time and attempt only) after a later collection's answer replaced their state. */
  replacedCollectionAnswers: 20,
  /** A split's subtask inputs together: they wait on the item (its follow-up) until created. */
  subtaskInputsBytes: 128 * 1024,
  /** Commands of one attempt running at once (each keeps its own deadline); a start past them is refused. */
  runningCommands: 32,
} as const;

export const newItemStats = (): ItemStats => ({
  agentsStarted: 0,
  agentsCompleted: 0,
  timeoutsByType: { agent: 0, command: {} },
  recentExecutions: [],
  recentTimeouts: [],
});

export function newPoolItem(poolId: string, itemId: string, input: unknown): PoolItem {
  return { poolId, itemId, input, state: 'available', attempt: 0, timeoutCount: 0, history: [], stats: newItemStats(), version: 0 };
}

/**
 * No attempt runs and no follow-up waits: the item's wake-up, if any, only retries its outbox (and
 * sits in the index's outbox shards, after every decision wake-up).
 */
export const isItemIdle = (item: Pick<PoolItem, 'run' | 'pending'>): boolean => item.run === undefined && (item.pending ?? []).length === 0;

/** After a timer id's '/', a checkpoint collection's is marked with what no item id can hold. */
const COLLECTION_MARK = '#collection#';

/** The item's timer id: pool and item ids cannot contain '/'. */
export const itemTimerId = (poolId: string, itemId: string): string => `${poolId}/${itemId}`;
export function parseItemTimerId(timerId: string): { poolId: string; itemId: string } | undefined {
  const slash = timerId.indexOf('/');
  if (slash <= 0 || timerId.startsWith(COLLECTION_MARK, slash + 1)) return undefined;
  return { poolId: timerId.slice(0, slash), itemId: timerId.slice(slash + 1) };
}

/** A checkpoint collection's wake-up (the next chunk of its pass). */
export const collectionTimerId = (poolId: string, collectionId: string): string => `${poolId}/${COLLECTION_MARK}${collectionId}`;
export function parseCollectionTimerId(timerId: string): { poolId: string; collectionId: string } | undefined {
  const slash = timerId.indexOf('/');
  if (slash <= 0 || !timerId.startsWith(COLLECTION_MARK, slash + 1)) return undefined;
  return { poolId: timerId.slice(0, slash), collectionId: timerId.slice(slash + 1 + COLLECTION_MARK.length) };
}

/** The pool's own wake-up (its wake pass's next chunk, or a retry of its outbox) has the pool id as its timer id: no '/'. */
export const poolTimerId = (poolId: string): string => poolId;
export const isPoolTimerId = (timerId: string): boolean => timerId.length > 0 && !timerId.includes('/');

export const keepLast = <T>(list: readonly T[], cap: number): T[] => (list.length > cap ? list.slice(list.length - cap) : [...list]);
