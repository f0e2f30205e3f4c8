import { randomUUID } from 'node:crypto';
import { askForCheckpoint } from '../../domain/pools/item-answers.js';
import { CollectionNotFoundError } from '../../domain/pools/pool-errors.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { secondsToMs } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideItem, loadOwnPool } from './pool-state-stores.js';

/** 150 checkpoint states of at most 32 KB each keep the status answer under Lambda's 6 MB. */
const MAX_AGENTS = 150;

/**
 * Seed 002's compaction: ask every running agent of the pool at once (their heartbeats answer
 * `checkpoint`), collect for `checkpoint_timeout_secs`, and report who answered, waiting no longer.
 */
export async function startCollection(deps: ManagerDeps, poolId: string, tenant: string = DEFAULT_TENANT) {
  const pool = await loadOwnPool(deps, poolId, tenant);
  const startedAt = deps.clock.now();
  const until = startedAt + secondsToMs(pool.config.checkpoint_timeout_secs);
  const { items } = await deps.pools.itemsInState(poolId, 'running', MAX_AGENTS);
  const agents: Array<{ agentId: string; itemId: string; attempt: number }> = [];
  for (const running of items) {
    const { item, decision } = await decideItem(deps, poolId, running.itemId, (current) => askForCheckpoint(current, running.attempt, until), running);
    if (decision.ignored === undefined && item.run) agents.push({ agentId: item.run.agentId, itemId: item.itemId, attempt: item.run.attempt });
  }
  const collectionId = randomUUID();
  await deps.pools.putCollection({ poolId, collectionId, startedAt, until, agents });
  return { collectionId };
}

export async function collectionStatus(deps: ManagerDeps, poolId: string, collectionId: string, tenant: string = DEFAULT_TENANT) {
  await loadOwnPool(deps, poolId, tenant);
  const collection = await deps.pools.getCollection(poolId, collectionId);
  if (!collection) throw new CollectionNotFoundError(collectionId);
  const items = await deps.pools.getItems(collection.agents.map((agent) => ({ poolId, itemId: agent.itemId })));
  const byId = new Map(items.map((item) => [item.itemId, item]));
  const collected: Array<{ agentId: string; itemId: string; state: unknown }> = [];
  const missing: string[] = [];
  for (const agent of collection.agents) {
    const checkpoint = byId.get(agent.itemId)?.lastCheckpoint;
    const answered = checkpoint !== undefined && checkpoint.attempt === agent.attempt && checkpoint.at >= collection.startedAt && checkpoint.at <= collection.until;
    if (answered) collected.push({ agentId: agent.agentId, itemId: agent.itemId, state: checkpoint.state });
    else missing.push(agent.agentId);
  }
  const done = missing.length === 0 || deps.clock.now() >= collection.until;
  return { collectionId, status: done ? 'done' : 'collecting', collected, missing };
}
