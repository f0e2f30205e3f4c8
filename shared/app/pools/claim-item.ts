import { claimItem, type ClaimInput } from '../../domain/pools/claim-item.js';
import { templateCommands, commandLimitSeconds } from '../../domain/pools/pool-config.js';
import { PoolFinishedError } from '../../domain/pools/pool-errors.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import type { Pool } from '../../domain/pools/pool.js';
import { toIso } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { attemptTokens } from './attempt-tokens.js';
import { decideItem, loadPool } from './pool-state-stores.js';

/** Candidates read per try; a random one is taken so racing agents mostly pick different items. */
const CANDIDATES = 25;
const MAX_TRIES = 32;

function claimView(deps: ManagerDeps, pool: Pool, item: PoolItem, previousCheckpoint: PoolItem['lastCheckpoint']) {
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

/**
 * `POST /pools/{poolId}/claims`: a conditional write `available → running, attempt + 1`. Of two
 * agents racing for one item exactly one wins; the other moves on to another item. Undefined
 * when nothing is available (204).
 */
export async function claimPoolItem(deps: ManagerDeps, poolId: string, claim: ClaimInput) {
  const pool = await loadPool(deps, poolId);
  if (pool.status === 'FAILED' || pool.status === 'CANCELLED') throw new PoolFinishedError(poolId, pool.status);
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const { items } = await deps.pools.itemsInState(poolId, 'available', CANDIDATES);
    if (items.length === 0) return undefined;
    const candidate = items[Math.floor(Math.random() * items.length)] as PoolItem;
    const now = deps.clock.now();
    const { item, decision } = await tryClaim(deps, pool, candidate, claim, now);
    if (decision.ignored === undefined) {
      deps.telemetry.info('item claimed', { poolId, itemId: item.itemId, attempt: item.attempt, agentId: claim.agentId, region: deps.region });
      return claimView(deps, pool, item, candidate.lastCheckpoint);
    }
  }
  return undefined;
}

/** One conditional claim; a lost race re-reads the item and finds it no longer claimable. */
const tryClaim = (deps: ManagerDeps, pool: Pool, candidate: PoolItem, claim: ClaimInput, now: number) =>
  decideItem(deps, pool.poolId, candidate.itemId, (current) => claimItem(current, pool, claim, now), candidate);
