import { itemsOpenedBy, withFollowUpsDone } from '../../domain/pools/item-answers.js';
import { failPool, reopenPool } from '../../domain/pools/pool-decisions.js';
import { newPoolItem, type FollowUp, type PoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import { storedTenant } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { completePoolIfDone } from './complete-pool-if-done.js';
import { decideItem, decidePool } from './pool-state-stores.js';
import { wakeNextChunk } from './wake-pass.js';

/** Candidates read back before counting the whole pool; a few, since most are usually still available. */
const FINISH_CHECK_CANDIDATES = 3;

async function runFollowUp(deps: ManagerDeps, item: PoolItem, pool: Pool, followUp: FollowUp): Promise<void> {
  switch (followUp.type) {
    case 'fail_pool': {
      const pool = await decidePool(deps, item.poolId, (current) => failPool(current, followUp.reason, deps.clock.now()));
      await wakeNextChunk(deps, pool);
      return;
    }
    case 'check_pool_finished': {
      if (await stillHasAvailableItems(deps, item.poolId)) return;
      const current = await deps.pools.getPool(item.poolId);
      if (current) await completePoolIfDone(deps, current);
      return;
    }
    case 'index_escalation':
      await deps.pools.putEscalationPointer({
        escalationId: followUp.escalationId,
        poolId: item.poolId,
        ...storedTenant(pool.tenant),
        itemId: item.itemId,
        askedAt: item.escalation?.askedAt ?? deps.clock.now(),
      });
      return;
    case 'create_items':
      await deps.pools.createItems(followUp.items.map((task) => newPoolItem(item.poolId, task.itemId, task.input)));
      return;
    case 'reopen_pool':
      await decidePool(deps, item.poolId, (current) => reopenPool(current, { itemIds: itemsOpenedBy(item), at: deps.clock.now() }));
      return;
  }
}

/**
 * A pool with an available item cannot be finished: one small index read and a consistent read of
 * a candidate or two answer that, so a completion costs the same in a pool of any size. Only when
 * none is surely available (the pool's tail) are all its items counted. The index may lag: a
 * candidate is trusted only once read back as available.
 */
async function stillHasAvailableItems(deps: ManagerDeps, poolId: string): Promise<boolean> {
  for (const itemId of await deps.pools.availableItemIds(poolId, FINISH_CHECK_CANDIDATES)) {
    if ((await deps.pools.getItem(poolId, itemId))?.state === 'available') return true;
  }
  return false;
}

/**
 * Carries out the work an item's write left for after it (failing or completing the pool, indexing
 * an escalation, creating a split's subtasks), then clears it. Until cleared it stays on the item
 * with a wake-up, so a crash in between repeats it; each is idempotent.
 */
export async function runFollowUps(deps: ManagerDeps, item: PoolItem, pool: Pool): Promise<PoolItem> {
  const pending = item.pending ?? [];
  if (pending.length === 0) return item;
  for (const followUp of pending) await runFollowUp(deps, item, pool, followUp);
  const { item: cleared } = await decideItem(deps, item.poolId, item.itemId, (current) =>
    withFollowUpsDone(current, startsWith(current.pending ?? [], pending) ? pending.length : 0, pool.config, deps.clock.now()),
  );
  return cleared;
}

/** Another write may have appended follow-ups meanwhile: only the ones carried out are dropped. */
const startsWith = (list: readonly FollowUp[], prefix: readonly FollowUp[]): boolean =>
  prefix.every((followUp, index) => JSON.stringify(list[index]) === JSON.stringify(followUp));
