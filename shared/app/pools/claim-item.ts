import { claimItem, type ClaimInput } from '../../domain/pools/claim-item.js';
import { templateCommands, commandLimitSeconds } from '../../domain/pools/pool-config.js';
import { ClaimEndedError, ClaimInFlightError, PoolFinishedError } from '../../domain/pools/pool-errors.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { toIso } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { attemptTokens } from './attempt-tokens.js';
import { decideItem, loadOwnPool } from './pool-state-stores.js';

/** Candidate ids read per try (bodies are not read); a random one is taken so racing agents mostly pick different items. */
const CANDIDATES = 25;
const MAX_TRIES = 32;

function claimView(deps: ManagerDeps, pool: Pool, item: PoolItem) {
  // A claim does not change the checkpoint: this is the one an earlier attempt left, to resume from.
  const previousCheckpoint = item.lastCheckpoint;
  const run = item.run;
  if (!run) throw new Error('a claimed item has a run');
  return {
    itemId: item.itemId,
    attempt: item.attempt,
    token: attemptTokens(deps.tokens).sign(item.poolId, item.itemId, item.attempt),
    input: item.input,
    deadlineAt: run.agentDeadlineAt === null ? null : toIso(run.agentDeadlineAt),
    commands: templateCommands(pool.config).map((command, index) => ({
      index,
      type: command.type,
      command: command.command,
      limitSeconds: commandLimitSeconds(pool.config, command.type, index),
    })),
    checkpointIntervalSeconds: pool.config.checkpoint_interval_secs,
    lastCheckpoint: previousCheckpoint ? { ...previousCheckpoint, at: toIso(previousCheckpoint.at) } : null,
  };
}

/** A reservation this old belongs to a claim that crashed or whose caller gave up (API Gateway answers within 29 s). */
const ABANDONED_AFTER_MS = 30_000;

export interface ClaimRequest extends ClaimInput {
  /** The caller's idempotency key: every repeat of one claim carries the same id and gets the same attempt. */
  claimId?: string;
}

/**
 * `POST /pools/{poolId}/claims`: a conditional write `available → running, attempt + 1`. Of two
 * agents racing for one item exactly one wins; the other moves on to another item. Undefined
 * when nothing is available (204).
 */
export async function claimPoolItem(deps: ManagerDeps, poolId: string, claim: ClaimRequest, tenant: string = DEFAULT_TENANT) {
  // The agent claims as the pool's tenant: the attempt's token it gets is what its later calls carry.
  const pool = await loadOwnPool(deps, poolId, tenant);
  if (claim.claimId !== undefined) return claimOnce(deps, pool, claim, claim.claimId);
  assertClaimable(pool);
  return takeAnItem(deps, pool, claim);
}

function assertClaimable(pool: Pool): void {
  if (pool.status === 'FAILED' || pool.status === 'CANCELLED') throw new PoolFinishedError(pool.poolId, pool.status);
}

/**
 * A claim with a `claimId`: a retry after a lost answer (a 504, a timeout) gets the attempt the
 * first one took instead of a second item, which would strand the first until its deadline. The
 * receipt is reserved before the item is taken and names it after: a repeat while the first is in
 * flight is told to retry (503 `busy`); a reservation abandoned for 30 s is retaken. Only a crash
 * between taking the item and naming it still strands that item until its deadline.
 */
async function claimOnce(deps: ManagerDeps, pool: Pool, claim: ClaimInput, claimId: string) {
  const found = await deps.pools.getClaimReceipt(pool.poolId, claim.agentId, claimId);
  if (found?.itemId !== undefined) return replay(deps, pool, found.itemId, found.attempt ?? 0, claimId);
  const now = deps.clock.now();
  if (found && now - found.reservedAt < ABANDONED_AFTER_MS) throw new ClaimInFlightError(claimId);
  assertClaimable(pool);
  // Nothing to take: answered without a receipt, so idle agents polling for work write nothing.
  if ((await deps.pools.availableItemIds(pool.poolId, 1)).length === 0) return undefined;
  const reserved = { poolId: pool.poolId, agentId: claim.agentId, claimId, reservedAt: now };
  if (!(await deps.pools.reserveClaim(reserved, found))) throw new ClaimInFlightError(claimId);
  const view = await takeAnItem(deps, pool, claim);
  if (view) await deps.pools.completeClaim(reserved, view.itemId, view.attempt);
  else await deps.pools.releaseClaim(reserved);
  return view;
}

async function replay(deps: ManagerDeps, pool: Pool, itemId: string, attempt: number, claimId: string) {
  const item = await deps.pools.getItem(pool.poolId, itemId);
  if (!item?.run || item.attempt !== attempt) throw new ClaimEndedError(claimId, itemId, attempt);
  return claimView(deps, pool, item);
}

async function takeAnItem(deps: ManagerDeps, pool: Pool, claim: ClaimInput) {
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const ids = await deps.pools.availableItemIds(pool.poolId, CANDIDATES);
    if (ids.length === 0) return undefined;
    const candidate = ids[Math.floor(Math.random() * ids.length)] as string;
    const now = deps.clock.now();
    const { item, decision } = await decideItem(deps, pool.poolId, candidate, (current) => claimItem(current, pool, claim, now));
    if (decision.ignored === undefined) {
      deps.telemetry.info('item claimed', { poolId: pool.poolId, itemId: item.itemId, attempt: item.attempt, agentId: claim.agentId, region: deps.region });
      return claimView(deps, pool, item);
    }
  }
  return undefined;
}
