import type { PoolCounts } from '../../domain/pools/pool-decisions.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { HistoryEntry, PoolItem } from '../../domain/pools/pool-item.js';
import { toIso } from '../../domain/time.js';

const shownCounts = ({ splitsPending: _pending, split: _split, ...counts }: PoolCounts) => counts;

/** Every item the pool holds, a split's subtasks and the split item itself included. */
const allItems = (counts: PoolCounts) => Object.entries(counts).reduce((sum, [state, count]) => (state === 'splitsPending' ? sum : sum + (count ?? 0)), 0);

/** The resolved config as the pool was given it, defaults filled in: which limits were given is Vigil's own bookkeeping. */
const configView = ({ limitsGiven: _bookkeeping, ...config }: Pool['config']) => config;

export const poolView = (pool: Pool, counts?: PoolCounts) => ({
  poolId: pool.poolId,
  status: pool.status,
  ...(pool.reason ? { reason: pool.reason } : {}),
  ...(counts ? { counts: shownCounts(counts) } : {}),
  items: counts ? allItems(counts) : pool.itemCount,
  createdAt: toIso(pool.createdAt),
  ...(pool.finishedAt !== undefined ? { finishedAt: toIso(pool.finishedAt) } : {}),
  config: configView(pool.config),
});

const historyView = (entry: HistoryEntry) => ({
  ...entry,
  startedAt: toIso(entry.startedAt),
  ...(entry.endedAt !== undefined ? { endedAt: toIso(entry.endedAt) } : {}),
  ...(entry.lateResults ? { lateResults: entry.lateResults.map((late) => ({ ...late, at: toIso(late.at) })) } : {}),
});

export const historyOf = (item: PoolItem) => item.history.map(historyView);

/** The item's latest checkpoint as answered (its time ISO-8601, as every time in an answer), or null. */
export const lastCheckpointOf = (item: Pick<PoolItem, 'lastCheckpoint'>) => (item.lastCheckpoint ? { ...item.lastCheckpoint, at: toIso(item.lastCheckpoint.at) } : null);

export const itemView = (item: PoolItem) => ({
  itemId: item.itemId,
  state: item.state,
  attempt: item.attempt,
  timeoutCount: item.timeoutCount,
  ...(item.stallCount ? { stallCount: item.stallCount } : {}),
  ...(item.returnCount ? { returnCount: item.returnCount } : {}),
  input: item.input,
  ...(item.reason ? { reason: item.reason } : {}),
  ...(item.limitSeconds !== undefined ? { limitSeconds: item.limitSeconds } : {}),
  lastCheckpoint: lastCheckpointOf(item),
  result: item.result ?? null,
  partialResult: item.partialResult ?? null,
  ...(item.splitInto ? { splitInto: item.splitInto } : {}),
  ...(item.escalation ? { escalationId: item.escalation.escalationId } : {}),
  history: historyOf(item),
  ...(item.historyDropped ? { historyDropped: item.historyDropped } : {}),
  ...(item.lateResultsDropped ? { lateResultsDropped: item.lateResultsDropped } : {}),
});
