import type { Effect } from '../effects.js';
import type { EpochMs } from '../time.js';

/**
 * A durable walk over a pool's running items, a chunk per invocation, in item-id order: the items
 * after `afterItemId` (every one without it) are still to be reached. Its holder (a stopped pool's
 * wake pass, a checkpoint collection) stores the place with a wake-up of its own, so a walk cut off
 * anywhere resumes from the place at that wake-up's redelivery or the sweep, instead of being lost.
 */
export interface RunningItemsPass {
  afterItemId?: string;
}

/** One chunk of a pass: where it started (the pass's place when it read its items), and the last item it reached. */
export interface PassChunk {
  from?: string;
  /** None when no running item follows the chunk: the pass is over. */
  reached?: string;
}

export const passFromTheStart = (): RunningItemsPass => ({});

/** What a chunk does to its pass: nothing, when the pass already left the chunk's place; else the pass moves past it, or is over. */
export type PassMove = { kind: 'already_done' } | { kind: 'over' } | { kind: 'moved'; pass: RunningItemsPass; nextChunk: Effect };

/**
 * A chunk that reached its items moves the pass past them and arms the next chunk now, as the
 * holder's wake-up (`timerId`). A chunk whose place the pass already left (a second delivery, a chunk
 * run beside it) moves nothing, so no chunk is skipped or counted twice.
 */
export function moveAfterChunk(pass: RunningItemsPass | undefined, chunk: PassChunk, timerId: string, now: EpochMs): PassMove {
  if (!pass || pass.afterItemId !== chunk.from) return { kind: 'already_done' };
  if (chunk.reached === undefined) return { kind: 'over' };
  return {
    kind: 'moved',
    pass: { afterItemId: chunk.reached },
    nextChunk: { type: 'ArmTimer', timer: { scope: 'pool', jobId: timerId, fenceToken: 0, dueAt: now } },
  };
}
