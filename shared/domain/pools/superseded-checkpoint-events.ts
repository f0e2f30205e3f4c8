import type { BusEvent } from '../../ports/event-bus.js';
import { CheckpointMissed } from '../../events/pools/checkpoint-missed.js';
import { CheckpointRequested } from '../../events/pools/checkpoint-requested.js';
import type { EpochMs } from '../time.js';

/**
 * An item's outbox without the checkpoint events a later one already says: a request whose answer
 * window closed before it could be published (a late wake-up, a manager or bus outage: the agent can
 * no longer answer it, and its miss follows), and every miss of an attempt but its latest, whose
 * `misses` counts the earlier ones. Without this an outage grew the outbox by two events per overdue
 * window: ten minutes at one checkpoint a second took an item past DynamoDB's 400 KB for good.
 */
export function withoutSupersededCheckpointEvents(events: readonly BusEvent[], now: EpochMs): BusEvent[] {
  const latestMiss = new Map<unknown, number>();
  events.forEach((event, index) => {
    if (event.detailType === CheckpointMissed.detailType) latestMiss.set(event.detail['attempt'], index);
  });
  return events.filter((event, index) => {
    if (event.detailType === CheckpointMissed.detailType) return latestMiss.get(event.detail['attempt']) === index;
    if (event.detailType === CheckpointRequested.detailType) return Date.parse(String(event.detail['answerBy'])) > now;
    return true;
  });
}
