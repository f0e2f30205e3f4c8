import { claimItem, type ClaimInput } from '../../domain/pools/claim-item.js';
import { templateCommands, commandLimitSeconds } from '../../domain/pools/pool-config.js';
import { PoolFinishedError } from '../../domain/pools/pool-errors.js';
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

/**
 * `POST /pools/{poolId}/claims`: a conditional write `available → running, attempt + 1`. Of two
 * agents racing for one item exactly one wins; the other moves on to another item. Undefined
 * when nothing is available (204).
 */
export async function claimPoolItem(deps: ManagerDeps, poolId: string, claim: ClaimInput, tenant: string = DEFAULT_TENANT) {
  // The agent claims as the pool's tenant: the attempt's token it gets is what its later calls carry.
  const pool = await loadOwnPool(deps, poolId, tenant);
  if (pool.status === 'FAILED' || pool.status === 'CANCELLED') throw new PoolFinishedError(poolId, pool.status);
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const ids = await deps.pools.availableItemIds(poolId, CANDIDATES);
    if (ids.length === 0) return undefined;
    const candidate = ids[Math.floor(Math.random() * ids.length)] as string;
    const now = deps.clock.now();
    const { item, decision } = await decideItem(deps, pool.poolId, candidate, (current) => claimItem(current, pool, claim, now));
    if (decision.ignored === undefined) {
      deps.telemetry.info('item claimed', { poolId, itemId: item.itemId, attempt: item.attempt, agentId: claim.agentId, region: deps.region });
      return claimView(deps, pool, item);
    }
  }
  return undefined;
}
