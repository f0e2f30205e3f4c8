import { afterCollectChunk, planCollectionChunk, type CheckpointCollection, type CollectionChunk } from '../../domain/pools/checkpoint-collection.js';
import { askForCheckpoint } from '../../domain/pools/item-answers.js';
import { attemptEventFields } from '../../domain/pools/attempt-events.js';
import { toIso } from '../../domain/time.js';
import { CheckpointRequested } from '../../events/pools/checkpoint-requested.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideCollection, decideItem } from './pool-state-stores.js';
import { readNextChunk, stepThrough } from './running-items-pass.js';

/**
 * One chunk of a checkpoint collection's pass (`CheckpointCollection.pass`). The next running items
 * after the pass's place are fixed as the chunk's asked agents and stored before any is asked, so a
 * run of the chunk cut off anywhere is run again (by its wake-up's redelivery or the sweep) with the
 * same agents and the same window: each agent is asked once, its heartbeat answers `checkpoint`.
 * Then the place moves past the chunk and the next is armed as the collection's wake-up. So no
 * invocation asks more than a chunk, whatever the pool's size.
 */
export async function collectNextChunk(deps: ManagerDeps, collection: CheckpointCollection): Promise<void> {
  if (!collection.pass) return;
  const { poolId, startedAt } = collection;
  const { items, chunk } = await readNextChunk(deps, poolId, collection.pass);
  const stored = await deps.pools.putCollectionChunk(planCollectionChunk(collection, items, chunk, deps.clock.now()));
  const read = new Map(items.map((item) => [item.itemId, item]));
  await stepThrough(stored.asked, (agent) =>
    decideItem(deps, poolId, agent.itemId, (current) => askForCheckpoint(current, agent.attempt, { since: startedAt, until: stored.until }), read.get(agent.itemId)),
  );
  const { decision } = await decideCollection(deps, collection, (current) => afterCollectChunk(current, stored, deps.clock.now()), collection);
  // Only the run that moved the pass announces the chunk: a second run of it publishes nothing.
  if (decision.ignored === undefined) await announceRequests(deps, stored);
}

/**
 * Agents driven by events hear the chunk's requests from `CheckpointRequested`, as for a periodic
 * request; each asked agent's heartbeat says `checkpoint` anyway. Sent once per chunk and not
 * retried: a lost publish leaves the heartbeat, and the collection never waits on the bus.
 */
async function announceRequests(deps: ManagerDeps, chunk: CollectionChunk): Promise<void> {
  if (chunk.asked.length === 0) return;
  const events = chunk.asked.map((agent) =>
    CheckpointRequested.build({ ...attemptEventFields({ poolId: chunk.poolId, itemId: agent.itemId }, agent, chunk.askedAt), answerBy: toIso(chunk.until) }),
  );
  try {
    await deps.bus.publish(events);
  } catch (error) {
    deps.telemetry.warn('checkpoint requests of a collection not published; the agents hear them at their heartbeats', { poolId: chunk.poolId, events: events.length, error: String(error) });
  }
}
