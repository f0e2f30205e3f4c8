import type { EpochMs } from '../time.js';
import type { PoolCounts } from './pool-decisions.js';
import type { Pool } from './pool.js';
import type { ItemState } from './pool-item.js';

/** An item's state without its body: what a pool's counts and its completion are decided from. */
export interface ItemStateEntry {
  itemId: string;
  state: ItemState;
  /** A split whose subtasks are not created yet: it holds its pool open. */
  splitPending: boolean;
}

/**
 * How long a write may take to show in a secondary index (on AWS well under a second; the simulator
 * draws up to 2 s): an item opened earlier than this is taken to show there as open.
 */
export const INDEX_SETTLED_MS = 60_000;
/** Items a pool remembers as opened lately; beyond, its completion counts the table itself for a while. */
export const MAX_OPENED_LATELY = 500;

/** An item that keeps its pool from completing (contract: available, running or escalated; a split until its subtasks exist). */
export const holdsPoolOpen = (entry: ItemStateEntry): boolean =>
  entry.splitPending || entry.state === 'available' || entry.state === 'running' || entry.state === 'escalated';

export function countStates(entries: Iterable<ItemStateEntry>): PoolCounts {
  const counts = { available: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, dlq: 0, escalated: 0, split: 0, splitsPending: 0 };
  for (const entry of entries) {
    if (entry.state in counts) counts[entry.state] += 1;
    if (entry.splitPending) counts.splitsPending += 1;
  }
  return counts;
}

/**
 * Items a redrive or an answer made open (or created) lately: the pool's index may still show them
 * as they were (settled) or not at all, so a completion reads them from the table.
 */
export const openedLately = (pool: Pool, now: EpochMs): string[] =>
  (pool.openedLately ?? []).filter((opened) => now - opened.at < INDEX_SETTLED_MS).map((opened) => opened.itemId);

/** More items were opened lately than the pool remembers: the index cannot be trusted to show them all yet. */
export const forgotOpenedLately = (pool: Pool, now: EpochMs): boolean =>
  pool.openedLatelyForgottenAt !== undefined && now - pool.openedLatelyForgottenAt < INDEX_SETTLED_MS;

/** The pool's record of `itemIds` opened at `now`, without what is old enough to show in the index. */
export function withOpenedLately(pool: Pool, itemIds: readonly string[], now: EpochMs): Pick<Pool, 'openedLately' | 'openedLatelyForgottenAt'> {
  const recent = [...(pool.openedLately ?? []).filter((opened) => now - opened.at < INDEX_SETTLED_MS), ...itemIds.map((itemId) => ({ itemId, at: now }))];
  const forgets = recent.length > MAX_OPENED_LATELY;
  return {
    openedLately: recent.slice(-MAX_OPENED_LATELY),
    ...(forgets ? { openedLatelyForgottenAt: now } : pool.openedLatelyForgottenAt !== undefined ? { openedLatelyForgottenAt: pool.openedLatelyForgottenAt } : {}),
  };
}
