import { createHash } from 'node:crypto';
import { randomUUID } from 'node:crypto';
import { resolvePoolConfig } from '../../domain/pools/pool-config.js';
import { PoolConflictError } from '../../domain/pools/pool-errors.js';
import { newPoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import type { PoolSubmission } from '../../contract/parse-pool-submission.js';
import { DEFAULT_TENANT, storedTenant } from '../../domain/tenant.js';
import type { ManagerDeps } from '../manager-deps.js';
import { poolView } from './pool-views.js';
import { decidePool } from './pool-state-stores.js';
import { withSortedKeys } from '../../domain/same-json.js';
import { openCreatedPool } from '../../domain/pools/pool-decisions.js';

// The tenant is part of the digest (absent for the default one, so older pools keep theirs): another
// tenant sending the same body is a 409, not this pool's view.
// Keys in any order are the same body; pools created before keys were sorted keep the digest of the
// body as it was sent, which a resend in the same order still matches.
const digests = (submission: PoolSubmission, tenant: string = DEFAULT_TENANT) => {
  const body = { items: submission.items, config: submission.config, ...storedTenant(tenant) };
  const hash = (text: string) => createHash('sha256').update(text).digest('hex');
  return { canonical: hash(JSON.stringify(withSortedKeys(body))), asSent: hash(JSON.stringify(body)) };
};

/**
 * `POST /pools`: idempotent on `poolId` like jobs; the same id with another body is a 409.
 * The pool item is written first, as CREATING with the body's digest, so of two creates with one id
 * only the first body's items are ever written; then the items (each create-only), then RUNNING.
 * A create that crashed midway is finished by sending it again (same body); until then the pool
 * is invisible (404) and nothing can claim its items.
 */
export async function createPool(deps: ManagerDeps, submission: PoolSubmission, tenant: string = DEFAULT_TENANT) {
  const poolId = submission.poolId ?? randomUUID();
  const { canonical: submissionHash, asSent } = digests(submission, tenant);
  const pool: Pool = {
    poolId,
    ...storedTenant(tenant),
    status: 'CREATING',
    config: resolvePoolConfig(submission.config),
    itemCount: submission.items.length,
    createdAt: deps.clock.now(),
    submissionHash,
    version: 0,
  };
  const put = await deps.pools.putNewPool(pool);
  const stored = put.created ? put.pool : put.existing;
  if (stored.submissionHash !== submissionHash && stored.submissionHash !== asSent) throw new PoolConflictError(poolId);
  if (stored.status !== 'CREATING') return { created: false, view: poolView(stored) };
  await deps.pools.createItems(submission.items.map((item) => newPoolItem(poolId, item.itemId, item.input ?? null)));
  const open = await decidePool(deps, poolId, openCreatedPool, stored);
  deps.telemetry.info(put.created ? 'pool created' : 'pool create finished', { poolId, region: deps.region, items: submission.items.length });
  // This call finished the create (a retry after a crash, or a twin of the first): it is answered as created.
  return { created: true, view: poolView(open) };
}
