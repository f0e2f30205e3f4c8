import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { resolvePoolConfig } from '../../domain/pools/pool-config.js';
import { PoolConflictError } from '../../domain/pools/pool-errors.js';
import { newPoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { PoolSubmission } from '../../contract/parse-pool-submission.js';
import type { ManagerDeps } from '../manager-deps.js';
import { poolView } from './pool-views.js';

const digest = (submission: PoolSubmission) =>
  createHash('sha256').update(JSON.stringify({ items: submission.items, config: submission.config })).digest('hex');

/** `POST /pools`: idempotent on `poolId` like jobs; the same id with another body is a 409. */
export async function createPool(deps: ManagerDeps, submission: PoolSubmission) {
  const poolId = submission.poolId ?? randomUUID();
  const submissionHash = digest(submission);
  const pool: Pool = {
    poolId,
    status: 'RUNNING',
    config: resolvePoolConfig(submission.config),
    itemCount: submission.items.length,
    createdAt: deps.clock.now(),
    submissionHash,
    version: 0,
  };
  const items = submission.items.map((item) => newPoolItem(poolId, item.itemId, item.input ?? null));
  const result = await deps.pools.createPool(pool, items);
  if (result.created) {
    deps.telemetry.info('pool created', { poolId, region: deps.region, items: items.length });
    return { created: true, view: poolView(result.pool) };
  }
  if (result.existing.submissionHash !== submissionHash) throw new PoolConflictError(poolId);
  return { created: false, view: poolView(result.existing) };
}
