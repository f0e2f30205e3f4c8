import type { EpochMs } from '../time.js';
import { ITEM_BOUNDS, keepLast, type HistoryEntry, type ItemStats, type LateResult, type PoolItem, type TimeoutInfo } from './pool-item.js';
import { storedBytes } from '../stored-size.js';

/** Appends an attempt's entry; the oldest entries go first past the cap, counted in `historyDropped`. */
export function withNewHistoryEntry(item: PoolItem, entry: HistoryEntry): PoolItem {
  const history = [...item.history, entry];
  const dropped = Math.max(0, history.length - ITEM_BOUNDS.history);
  return {
    ...item,
    history: history.slice(dropped),
    ...(dropped > 0 ? { historyDropped: (item.historyDropped ?? 0) + dropped } : {}),
  };
}

export function updateHistoryEntry(item: PoolItem, attempt: number, change: (entry: HistoryEntry) => HistoryEntry): PoolItem {
  return { ...item, history: item.history.map((entry) => (entry.attempt === attempt ? change(entry) : entry)) };
}

/**
 * A refused result, kept (bounded) in its attempt's entry: never applied, never silently dropped.
 * When that entry already left the bounded history, the item counts it in `lateResultsDropped`.
 */
export function withLateResult(item: PoolItem, attempt: number, call: string, result: unknown, at: EpochMs): PoolItem {
  if (!item.history.some((entry) => entry.attempt === attempt)) return { ...item, lateResultsDropped: (item.lateResultsDropped ?? 0) + 1 };
  const bytes = storedBytes(result);
  const late: LateResult = { at, call, ...(result === undefined ? {} : bytes <= ITEM_BOUNDS.lateResultBytes ? { result } : { resultBytes: bytes }) };
  return updateHistoryEntry(item, attempt, (entry) => {
    const lateResults = [...(entry.lateResults ?? []), late];
    const dropped = Math.max(0, lateResults.length - ITEM_BOUNDS.lateResultsPerAttempt);
    return {
      ...entry,
      lateResults: lateResults.slice(dropped),
      ...(dropped > 0 ? { lateResultsDropped: (entry.lateResultsDropped ?? 0) + dropped } : {}),
    };
  });
}

/** Where timeouts of command types past `ITEM_BOUNDS.commandTypesCounted` are counted. */
export const OTHER_COMMAND_TYPES = '(other)';

export const withExecution = (stats: ItemStats, at: EpochMs, seconds: number): ItemStats => ({
  ...stats,
  recentExecutions: keepLast([...stats.recentExecutions, { at, seconds }], ITEM_BOUNDS.recentExecutions),
});

export function withTimeoutStat(stats: ItemStats, at: EpochMs, attempt: number, agentId: string, timeout: TimeoutInfo): ItemStats {
  const command = { ...stats.timeoutsByType.command };
  if (timeout.type === 'command') {
    // The agent names its commands' types: past a few distinct ones they are counted together, or
    // an agent inventing a new type per attempt would grow the item without end.
    const named = timeout.commandType ?? 'unknown';
    const key = named in command || Object.keys(command).length < ITEM_BOUNDS.commandTypesCounted ? named : OTHER_COMMAND_TYPES;
    command[key] = (command[key] ?? 0) + 1;
  }
  return {
    ...stats,
    timeoutsByType: { agent: stats.timeoutsByType.agent + (timeout.type === 'agent' ? 1 : 0), command },
    recentTimeouts: keepLast([...stats.recentTimeouts, { at, attempt, agentId, ...timeout }], ITEM_BOUNDS.recentTimeouts),
  };
}
