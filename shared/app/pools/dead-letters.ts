import { DLQ_PAGE_SIZE } from '../../contract/pool-requests.js';
import { retryFromDlq } from '../../domain/pools/item-answers.js';
import { assertReopenable } from '../../domain/pools/pool-decisions.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { fitAnswerBudget } from './answer-budget.js';
import { runFollowUps } from './follow-ups.js';
import { decideItem, loadItem, loadOwnPool } from './pool-state-stores.js';
import { historyOf, lastCheckpointOf } from './pool-views.js';


/**
 * `GET /pools/{poolId}/dlq?cursor=`: dead-lettered items with every attempt and its timeout, in
 * item-id order. The cursor is the `nextCursor` of the previous answer (the last item id it held).
 */
export async function listDeadLetters(deps: ManagerDeps, poolId: string, page: { limit?: number; cursor?: string }, tenant: string = DEFAULT_TENANT) {
  await loadOwnPool(deps, poolId, tenant);
  const limit = Math.min(Math.max(page.limit ?? DLQ_PAGE_SIZE, 1), DLQ_PAGE_SIZE);
  const { items, more } = await deps.pools.itemsInState(poolId, 'dlq', limit, page.cursor);
  const entries = fitAnswerBudget(
    items.map((item) => ({
      itemId: item.itemId,
      timeoutCount: item.timeoutCount,
      input: item.input,
      partialResult: item.partialResult ?? null,
      lastCheckpoint: lastCheckpointOf(item),
      history: historyOf(item),
      ...(item.historyDropped ? { historyDropped: item.historyDropped } : {}),
    })),
  );
  const last = entries.at(-1);
  const cut = entries.length < items.length || more;
  return { items: entries, ...(cut && last ? { nextCursor: last.itemId } : {}) };
}

/** `POST /pools/{poolId}/dlq/{itemId}/retry`: available again (a COMPLETED pool runs again), optionally with a new limit. */
export async function retryDeadLetter(deps: ManagerDeps, poolId: string, itemId: string, agentTimeoutSecs: number | undefined, tenant: string = DEFAULT_TENANT) {
  const pool = await loadOwnPool(deps, poolId, tenant); // before the item, so another tenant's item ids stay unknown
  assertReopenable(pool);
  const item = await loadItem(deps, poolId, itemId);
  const now = deps.clock.now();
  const decided = await decideItem(deps, poolId, itemId, (current) => retryFromDlq(current, agentTimeoutSecs, pool.config, now), item);
  // The pool runs again only once the item is available: a count between the two cannot finish it again.
  const retried = await runFollowUps(deps, decided.item, pool);
  return { itemId, state: retried.state, ...(retried.limitSeconds !== undefined ? { limitSeconds: retried.limitSeconds } : {}) };
}
