import { randomUUID } from 'node:crypto';
import { answersAgent, newCollection, type AskedAgentWindow, type CheckpointCollection } from '../../domain/pools/checkpoint-collection.js';
import { CollectionNotFoundError } from '../../domain/pools/pool-errors.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { secondsToMs } from '../../domain/time.js';
import { VersionConflictError } from '../../ports/job-store.js';
import type { ManagerDeps } from '../manager-deps.js';
import { ANSWER_BUDGET_BYTES } from './answer-budget.js';
import { collectNextChunk } from './collection-pass.js';
import { loadOwnPool } from './pool-state-stores.js';

/** Asked agents read per step of a status page (one batched read of their items). */
const STATUS_STEP = 25;
/**
 * Asked agents one status page reads at most. A silent agent is a few bytes of answer, so the answer's
 * budget alone let a page read every asked agent's item: 10,000 items of up to ~110 KB outlast API
 * Gateway's 29 s. 250 of them are ~7,000 consistent read units, a few seconds at one partition's 3,000 a second.
 */
export const STATUS_PAGE_AGENTS = 250;

/**
 * Seed 002's compaction: ask every running agent of the pool (their heartbeats answer `checkpoint`),
 * each for `checkpoint_timeout_secs`, and report who answered, waiting no longer. The collection is
 * stored first, with its pass over the running items; this call asks the first chunk, each further
 * chunk is its own wake-up. A first chunk that fails is left to the sweep: the collection is stored.
 * A `collectionId` of the caller's makes the call safe to repeat: a repeat finds it stored and answers
 * it, asking nobody, whether the first call is still asking, was cut off (its pass is the sweep's) or
 * the collection is done.
 */
export async function startCollection(deps: ManagerDeps, poolId: string, tenant: string = DEFAULT_TENANT, request: { collectionId?: string } = {}) {
  const pool = await loadOwnPool(deps, poolId, tenant);
  const collectionId = request.collectionId ?? randomUUID();
  const collection = await storeOnce(deps, newCollection(poolId, collectionId, secondsToMs(pool.config.checkpoint_timeout_secs), deps.clock.now()));
  if (!collection) return { collectionId };
  try {
    await collectNextChunk(deps, collection);
  } catch (error) {
    deps.telemetry.warn('first chunk of a checkpoint collection failed; the sweep runs it', { poolId, collectionId, error: String(error) });
  }
  return { collectionId };
}

/**
 * Stores a new collection unless one has its id: the create-only write decides between concurrent
 * repeats, so one of them stores and asks, the others answer it (undefined).
 */
async function storeOnce(deps: ManagerDeps, collection: CheckpointCollection): Promise<CheckpointCollection | undefined> {
  try {
    return await deps.pools.putCollection(collection);
  } catch (error) {
    if (error instanceof VersionConflictError) return undefined;
    throw error;
  }
}

/**
 * Who answered and who did not, in the order they were asked, one answer's worth at a time (a state
 * is up to 32 KB) and at most `STATUS_PAGE_AGENTS` agents: `nextCursor` asks for the rest. `done`
 * once the pass is over and everyone it asked answered, or the last window closed.
 */
export async function collectionStatus(deps: ManagerDeps, poolId: string, collectionId: string, tenant: string = DEFAULT_TENANT, cursor?: string) {
  await loadOwnPool(deps, poolId, tenant);
  const collection = await deps.pools.getCollection(poolId, collectionId);
  if (!collection) throw new CollectionNotFoundError(collectionId);
  const collected: Array<{ agentId: string; itemId: string; state: unknown; replaced?: true }> = [];
  const missing: string[] = [];
  const first = cursor === undefined ? 0 : Number(cursor);
  const end = Math.min(collection.agentCount, first + STATUS_PAGE_AGENTS);
  let next = first;
  let usedBytes = 0;
  pages: while (next < end) {
    const asked = await deps.pools.askedAgents(collection, next, Math.min(STATUS_STEP, end - next));
    const items = await deps.pools.getItems(asked.map((agent) => ({ poolId, itemId: agent.itemId })));
    const byId = new Map(items.map((item) => [item.itemId, item]));
    for (const agent of asked) {
      const item = byId.get(agent.itemId);
      const state = answeredState(collection, agent, item?.lastCheckpoint) ?? answeredState(collection, agent, item?.collectionAnswer);
      const replaced = state === undefined && (item?.replacedCollectionAnswers ?? []).some((answer) => answersAgent(collection, agent, answer));
      const entry =
        state !== undefined
          ? { agentId: agent.agentId, itemId: agent.itemId, state: state.value }
          : replaced
            ? // It answered; the state its answer to a later collection replaced is not kept.
              { agentId: agent.agentId, itemId: agent.itemId, state: null, replaced: true as const }
            : agent.agentId;
      usedBytes += Buffer.byteLength(JSON.stringify(entry), 'utf8') + 1;
      if (usedBytes > ANSWER_BUDGET_BYTES && collected.length + missing.length > 0) break pages;
      if (typeof entry === 'string') missing.push(entry);
      else collected.push(entry);
      next++;
    }
    if (asked.length === 0) break;
  }
  const more = next < collection.agentCount;
  // While the pass runs, agents are still being asked. Across pages, only the last window's end says that everyone who will answer has.
  const done = collection.pass === undefined && (deps.clock.now() >= collection.until || (missing.length === 0 && cursor === undefined && !more));
  return { collectionId, status: done ? 'done' : 'collecting', collected, missing, ...(more ? { nextCursor: String(next) } : {}) };
}

function answeredState(collection: CheckpointCollection, agent: AskedAgentWindow, checkpoint: { attempt: number; at: number; state: unknown } | undefined) {
  return checkpoint !== undefined && answersAgent(collection, agent, checkpoint) ? { value: checkpoint.state } : undefined;
}
