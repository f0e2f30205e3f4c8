import { randomUUID } from 'node:crypto';
import { askForCheckpoint } from '../../domain/pools/item-answers.js';
import { CollectionNotFoundError } from '../../domain/pools/pool-errors.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { secondsToMs, toIso, type EpochMs } from '../../domain/time.js';
import { attemptEventFields } from '../../domain/pools/attempt-events.js';
import { CheckpointRequested } from '../../events/pools/checkpoint-requested.js';
import type { AskedAgent, CheckpointCollection } from '../../ports/pool-store.js';
import { inBatches } from '../in-batches.js';
import type { ManagerDeps } from '../manager-deps.js';
import { ANSWER_BUDGET_BYTES } from './answer-budget.js';
import { decideItem, loadOwnPool } from './pool-state-stores.js';

/** Running items read per page, and asked at once. */
const RUNNING_PAGE = 100;
const ASKED_AT_ONCE = 16;
/** Asked agents read per step of a status page (one batched read of their items). */
const STATUS_STEP = 25;

/**
 * Each asked agent hears `checkpoint` at its next heartbeat (the request is in its item); agents
 * driven by events hear it from `CheckpointRequested`, as for a periodic request. Sent a page at a
 * time and at most once: a lost event leaves the heartbeat, and the collection never waits on the bus.
 */
async function announceRequests(deps: ManagerDeps, poolId: string, asked: readonly AskedAgent[], at: EpochMs, until: EpochMs): Promise<void> {
  if (asked.length === 0) return;
  const events = asked.map((agent) =>
    CheckpointRequested.build({ ...attemptEventFields({ poolId, itemId: agent.itemId }, agent, at), answerBy: toIso(until) }),
  );
  try {
    await deps.bus.publish(events);
  } catch (error) {
    deps.telemetry.warn('checkpoint requests of a collection not published; the agents hear them at their heartbeats', { poolId, events: events.length, error: String(error) });
  }
}

/**
 * Seed 002's compaction: ask every running agent of the pool at once (their heartbeats answer
 * `checkpoint`), collect for `checkpoint_timeout_secs`, and report who answered, waiting no longer.
 */
export async function startCollection(deps: ManagerDeps, poolId: string, tenant: string = DEFAULT_TENANT) {
  const pool = await loadOwnPool(deps, poolId, tenant);
  const startedAt = deps.clock.now();
  const until = startedAt + secondsToMs(pool.config.checkpoint_timeout_secs);
  const agents: AskedAgent[] = [];
  let after: string | undefined;
  do {
    const page = await deps.pools.itemsInState(poolId, 'running', RUNNING_PAGE, after);
    const asked: AskedAgent[] = [];
    await inBatches(page.items, ASKED_AT_ONCE, async (running) => {
      const { item, decision } = await decideItem(deps, poolId, running.itemId, (current) => askForCheckpoint(current, running.attempt, until), running);
      if (decision.ignored === undefined && item.run) asked.push({ agentId: item.run.agentId, itemId: item.itemId, attempt: item.run.attempt });
    });
    await announceRequests(deps, poolId, asked, startedAt, until);
    agents.push(...asked);
    after = page.more ? page.items.at(-1)?.itemId : undefined;
  } while (after !== undefined);
  const collectionId = randomUUID();
  await deps.pools.putCollection({ poolId, collectionId, startedAt, until }, agents);
  return { collectionId };
}

/**
 * Who answered and who did not, in the order they were asked, one answer's worth at a time (a state
 * is up to 32 KB): `nextCursor` asks for the rest. `done` once everyone answered or the window closed.
 */
export async function collectionStatus(deps: ManagerDeps, poolId: string, collectionId: string, tenant: string = DEFAULT_TENANT, cursor?: string) {
  await loadOwnPool(deps, poolId, tenant);
  const collection = await deps.pools.getCollection(poolId, collectionId);
  if (!collection) throw new CollectionNotFoundError(collectionId);
  const collected: Array<{ agentId: string; itemId: string; state: unknown; replaced?: true }> = [];
  const missing: string[] = [];
  let next = cursor === undefined ? 0 : Number(cursor);
  let usedBytes = 0;
  pages: while (next < collection.agentCount) {
    const asked = await deps.pools.askedAgents(collection, next, STATUS_STEP);
    const items = await deps.pools.getItems(asked.map((agent) => ({ poolId, itemId: agent.itemId })));
    const byId = new Map(items.map((item) => [item.itemId, item]));
    for (const agent of asked) {
      const item = byId.get(agent.itemId);
      const state = answeredState(collection, agent, item?.lastCheckpoint) ?? answeredState(collection, agent, item?.collectionAnswer);
      const replaced = state === undefined && (item?.replacedCollectionAnswers ?? []).some((answer) => answered(collection, agent, answer));
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
  // Across pages, only the window's end says that everyone who will answer has.
  const done = deps.clock.now() >= collection.until || (missing.length === 0 && cursor === undefined && !more);
  return { collectionId, status: done ? 'done' : 'collecting', collected, missing, ...(more ? { nextCursor: String(next) } : {}) };
}

const answered = (collection: CheckpointCollection, agent: AskedAgent, answer: { attempt: number; at: number }) =>
  answer.attempt === agent.attempt && answer.at >= collection.startedAt && answer.at < collection.until;

function answeredState(collection: CheckpointCollection, agent: AskedAgent, checkpoint: { attempt: number; at: number; state: unknown } | undefined) {
  return checkpoint !== undefined && answered(collection, agent, checkpoint) ? { value: checkpoint.state } : undefined;
}
