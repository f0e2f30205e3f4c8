import { holdsPoolOpen } from '../../domain/pools/item-census.js';
import { itemsOpenedBy, withFollowUpsDone } from '../../domain/pools/item-answers.js';
import { failPool, reopenPool } from '../../domain/pools/pool-decisions.js';
import { newPoolItem, type FollowUp, type PoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import { storedTenant } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { completePoolIfDone } from './complete-pool-if-done.js';
import { decideItem, decidePool, loadPool } from './pool-state-stores.js';
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
    case 'reopen_pool': {
      const itemIds = itemsOpenedBy(item);
      const read = await loadPool(deps, item.poolId);
      const workLeft = await anyStillOpen(deps, item.poolId, itemIds);
      let fromCompleted = false;
      const reopened = await decidePool(
        deps,
        item.poolId,
        (current) => {
          fromCompleted = current.status === 'COMPLETED';
          return reopenPool(current, { itemIds, at: deps.clock.now(), workLeft });
        },
        read,
      );
      // The work got done between the read and the reopening: its own completion check found the
      // pool COMPLETED and did nothing, so the pool is completed again here (review finding).
      if (fromCompleted && workLeft && !(await anyStillOpen(deps, item.poolId, itemIds))) await completePoolIfDone(deps, reopened);
      return;
    }
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

/** Whether any of these items (read consistently) still holds its pool open. */
async function anyStillOpen(deps: ManagerDeps, poolId: string, itemIds: readonly string[]): Promise<boolean> {
  return (await deps.pools.readItemStates(poolId, itemIds)).some(holdsPoolOpen);
}

/**
 * Carries out the work an item's write left for after it (failing or completing the pool, indexing
 * an escalation, creating a split's subtasks), then clears it. Until cleared it stays on the item
 * with a wake-up, so a crash in between repeats it; each is idempotent.
 */
export async function runFollowUps(deps: ManagerDeps, item: PoolItem, pool: Pool): Promise<PoolItem> {
  let current = item;
  for (let pending = item.pending ?? []; pending.length > 0; ) {
    const batch = pending.slice(0, beforeCountingTheSplit(pending));
    for (const followUp of batch) await runFollowUp(deps, current, pool, followUp);
    ({ item: current } = await decideItem(deps, item.poolId, item.itemId, (stored) =>
      withFollowUpsDone(stored, startsWith(stored.pending ?? [], batch) ? batch.length : 0, pool.config, deps.clock.now()),
    ));
    pending = pending.slice(batch.length);
  }
  return current;
}

/**
 * How many follow-ups to carry out and clear before the rest: those before the completion check that
 * follows a split's subtask creation (the creation and the pool's reopening, which remembers the
 * subtasks as opened lately). Until the creation is cleared the split item holds its pool open, so a
 * check run before that always found it pending, and a pool whose subtasks settled meanwhile (an
 * answer cut off after creating them) never finished (review finding).
 */
function beforeCountingTheSplit(pending: readonly FollowUp[]): number {
  const creation = pending.findIndex((followUp) => followUp.type === 'create_items');
  const check = pending.findIndex((followUp, index) => index > creation && followUp.type === 'check_pool_finished');
  return creation < 0 || check < 0 ? pending.length : check;
}

/** Another write may have appended follow-ups meanwhile: only the ones carried out are dropped. */
const startsWith = (list: readonly FollowUp[], prefix: readonly FollowUp[]): boolean =>
  prefix.every((followUp, index) => JSON.stringify(list[index]) === JSON.stringify(followUp));
