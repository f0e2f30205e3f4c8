import { unchanged, type Decision } from '../effects.js';
import type { EpochMs } from '../time.js';
import { collectionTimerId, type PoolItem } from './pool-item.js';
import { moveAfterChunk, passFromTheStart, type PassChunk, type RunningItemsPass } from './running-items-pass.js';

export interface AskedAgent {
  agentId: string;
  itemId: string;
  attempt: number;
}

/** An asked agent with the end of the window its chunk gave it to answer in. */
export interface AskedAgentWindow extends AskedAgent {
  until: EpochMs;
}

/**
 * A checkpoint collection (seed 002 compaction). A pass over the pool's running items asks their
 * agents, a chunk per invocation (`collection-pass.ts`), each chunk's agents stored as one row in the
 * order asked. Each agent has `windowMs` from when its chunk asked it.
 */
export interface CheckpointCollection {
  poolId: string;
  collectionId: string;
  startedAt: EpochMs;
  /** The latest window's end among its chunks: once the pass is over, nobody's answer counts from then. */
  until: EpochMs;
  /** The pool's `checkpoint_timeout_secs` as the collection began: how long each chunk's agents have to answer. */
  windowMs: number;
  /** Agents asked so far, over every chunk. */
  agentCount: number;
  /**
   * Where each stored chunk's agents start among them (a chunk may ask none). Collections stored
   * before passes have none of it (nor `windowMs`, nor a pass): asked in one call, in rows of 500.
   */
  chunkStarts?: number[];
  /** Present until the pass reached every running item. */
  pass?: RunningItemsPass;
  /** The wake-up that runs the pass's next chunk. */
  timerDueAt?: EpochMs;
  version: number;
}

/**
 * One chunk of a collection's pass, stored before any of its agents is asked: a run of the chunk
 * that finds one stored (a redelivery, a rerun after a cut-off) asks the same agents until the same
 * time and moves the pass by the same place, so a chunk has one outcome however often it runs.
 */
export interface CollectionChunk extends PassChunk {
  poolId: string;
  collectionId: string;
  /** Its place among the collection's chunks: 0, 1, … */
  index: number;
  /** Where its agents start among the collection's asked agents. */
  start: number;
  askedAt: EpochMs;
  until: EpochMs;
  asked: AskedAgent[];
}

/**
 * A collection begins, its pass from the first running item. Its wake-up is stored but not armed:
 * the call that started it runs the first chunk itself, and if it is cut off first the sweep finds
 * the wake-up within the detection bound.
 */
export const newCollection = (poolId: string, collectionId: string, windowMs: number, now: EpochMs): CheckpointCollection => ({
  poolId,
  collectionId,
  startedAt: now,
  until: now + windowMs,
  windowMs,
  agentCount: 0,
  chunkStarts: [],
  pass: passFromTheStart(),
  timerDueAt: now,
  version: 0,
});

/** The agents a chunk asks: those of its running items that are not being terminated, each until now + the window. */
export function planCollectionChunk(collection: CheckpointCollection, items: readonly PoolItem[], chunk: PassChunk, now: EpochMs): CollectionChunk {
  const asked = items.flatMap((item) => (item.run && !item.run.terminating ? [{ agentId: item.run.agentId, itemId: item.itemId, attempt: item.run.attempt }] : []));
  return {
    poolId: collection.poolId,
    collectionId: collection.collectionId,
    index: collection.chunkStarts?.length ?? 0,
    ...(chunk.from !== undefined ? { from: chunk.from } : {}),
    ...(chunk.reached !== undefined ? { reached: chunk.reached } : {}),
    start: collection.agentCount,
    askedAt: now,
    until: now + collection.windowMs,
    asked,
  };
}

/**
 * A stored chunk's agents were asked: the collection counts them and its pass moves past the chunk,
 * arming the next as the collection's wake-up, or ends. A chunk the pass already left changes nothing.
 */
export function afterCollectChunk(collection: CheckpointCollection, chunk: CollectionChunk, now: EpochMs): Decision<CheckpointCollection> {
  const move = moveAfterChunk(collection.pass, chunk, collectionTimerId(collection.poolId, collection.collectionId), now);
  if (move.kind === 'already_done') return unchanged(collection, 'chunk_already_done');
  const { pass: _place, timerDueAt: _nextChunk, ...rest } = collection;
  const counted: CheckpointCollection = {
    ...rest,
    agentCount: collection.agentCount + chunk.asked.length,
    chunkStarts: [...(collection.chunkStarts ?? []), chunk.start],
    until: Math.max(collection.until, chunk.until),
  };
  if (move.kind === 'over') return { state: counted, effects: [] };
  return { state: { ...counted, pass: move.pass, timerDueAt: now }, effects: [move.nextChunk] };
}

/** Whether an answer given at `at` by `attempt` answers this agent: its attempt's, within [the collection's start, its window's end). */
export const answersAgent = (collection: Pick<CheckpointCollection, 'startedAt'>, agent: AskedAgentWindow, answer: { attempt: number; at: EpochMs }): boolean =>
  answer.attempt === agent.attempt && answer.at >= collection.startedAt && answer.at < agent.until;
