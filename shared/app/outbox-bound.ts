import { storedBytes } from '../domain/stored-size.js';
import type { BusEvent } from '../ports/event-bus.js';

/**
 * The most an item's outbox holds (`storedBytes`). An outbox grows only while the bus is down, and a job's
 * stays a few events long; a pool item whose attempts keep turning over through an outage of hours
 * would otherwise grow without end and, past DynamoDB's 400 KB, make the item unwritable: the worse loss.
 */
export const OUTBOX_LIMIT_BYTES = 64 * 1024;

/**
 * The most an item may reach with its outbox (`storedBytes`): DynamoDB's 400 KB less room for the
 * keys and bookkeeping the store adds. A pool item at its bounds (input, results, checkpoints,
 * history, a split waiting to be created) leaves its outbox only what is left.
 */
export const ITEM_BUDGET_BYTES = 380 * 1024;

/** How much outbox an item leaves room for, never more than `OUTBOX_LIMIT_BYTES`. */
export function outboxRoom(state: object): number {
  const { outbox: _outbox, ...rest } = state as { outbox?: unknown };
  return Math.max(0, Math.min(OUTBOX_LIMIT_BYTES, ITEM_BUDGET_BYTES - storedBytes(rest)));
}

/** The newest events that fit the limit, and how many older ones did not. */
export function boundOutbox(events: readonly BusEvent[], limitBytes = OUTBOX_LIMIT_BYTES): { kept: BusEvent[]; dropped: number } {
  let bytes = 0;
  let first = events.length;
  while (first > 0) {
    const size = storedBytes(events[first - 1]);
    if (bytes + size > limitBytes) break;
    bytes += size;
    first--;
  }
  return { kept: events.slice(first), dropped: first };
}
