import { toIso, type EpochMs } from '../time.js';
import type { AttemptRun, PoolItem } from './pool-item.js';

/** The fields every attempt event carries (see `shared/events/pools/pool-event-fields.ts`). */
export const attemptEventFields = (item: Pick<PoolItem, 'poolId' | 'itemId'>, run: Pick<AttemptRun, 'attempt' | 'agentId'>, at: EpochMs) => ({
  poolId: item.poolId,
  itemId: item.itemId,
  attempt: run.attempt,
  agentId: run.agentId,
  at: toIso(at),
});
