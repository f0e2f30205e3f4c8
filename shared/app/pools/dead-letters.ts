import { retryFromDlq } from '../../domain/pools/item-answers.js';
import { reopenPool } from '../../domain/pools/pool-decisions.js';
import type { ManagerDeps } from '../manager-deps.js';
import { decideItem, decidePool, loadItem, loadPool } from './pool-state-stores.js';
import { historyOf } from './pool-views.js';

/** Items with their full (bounded) history are up to ~100 KB: a page of 50 stays far below Lambda's 6 MB. */
export const DLQ_PAGE_SIZE = 50;

/** `GET /pools/{poolId}/dlq`: dead-lettered items with every attempt and its timeout, paged by `nextToken`. */
export async function listDeadLetters(deps: ManagerDeps, poolId: string, page: { limit?: number; nextToken?: string }) {
  await loadPool(deps, poolId);
  const limit = Math.min(Math.max(page.limit ?? DLQ_PAGE_SIZE, 1), DLQ_PAGE_SIZE);
  const { items, nextToken } = await deps.pools.itemsInState(poolId, 'dlq', limit, page.nextToken);
  return {
    items: items.map((item) => ({
      itemId: item.itemId,
      timeoutCount: item.timeoutCount,
      input: item.input,
      partialResult: item.partialResult ?? null,
      lastCheckpoint: item.lastCheckpoint ?? null,
      history: historyOf(item),
    })),
    ...(nextToken ? { nextToken } : {}),
  };
}

/** `POST /pools/{poolId}/dlq/{itemId}/retry`: available again (a COMPLETED pool runs again), optionally with a new limit. */
export async function retryDeadLetter(deps: ManagerDeps, poolId: string, itemId: string, agentTimeoutSecs: number | undefined) {
  const item = await loadItem(deps, poolId, itemId);
  retryFromDlq(item, agentTimeoutSecs); // refuses before the pool is touched
  await decidePool(deps, poolId, reopenPool);
  const { item: retried } = await decideItem(deps, poolId, itemId, (current) => retryFromDlq(current, agentTimeoutSecs), item);
  return { itemId, state: retried.state, ...(retried.limitSeconds !== undefined ? { limitSeconds: retried.limitSeconds } : {}) };
}
