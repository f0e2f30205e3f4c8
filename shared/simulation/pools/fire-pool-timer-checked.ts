import type { ManagerDeps } from '../../app/manager-deps.js';
import { firePoolTimer } from '../../app/pools/fire-pool-timer.js';
import { parseItemTimerId, type PoolItem } from '../../domain/pools/pool-item.js';
import type { PoolStore } from '../../ports/pool-store.js';
import type { TimerRequest } from '../../ports/timers.js';
import type { World } from '../world/world.js';
import { withStaleAttemptCheck } from './stale-attempt-guard.js';

/** A pool item's wake-up, as the region's timer queue delivers it; one for an older attempt must change nothing. */
export async function firePoolTimerChecked(world: World, observe: PoolStore, deps: ManagerDeps, timer: TimerRequest): Promise<void> {
  const ids = parseItemTimerId(timer.jobId);
  if (!ids) return firePoolTimer(deps, timer);
  const input = { ...ids, attempt: timer.fenceToken, what: 'a wake-up', mustNotChange: (due: PoolItem) => due.attempt > timer.fenceToken };
  await withStaleAttemptCheck(world, observe, input, () => firePoolTimer(deps, timer));
}
