import { onItemWakeUp } from '../../domain/pools/advance-attempt.js';
import { claimedAttempt, claimItem, type ClaimInput } from '../../domain/pools/claim-item.js';
import { claimedCadence } from '../../domain/pools/heartbeat-cadence.js';
import { templateCommands, commandLimitSeconds } from '../../domain/pools/pool-config.js';
import { ClaimEndedError, ClaimInFlightError, PoolFinishedError } from '../../domain/pools/pool-errors.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import { poolIsStopped, type Pool } from '../../domain/pools/pool.js';
import type { ClaimReceipt } from '../../ports/pool-store.js';
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
      limitSeconds: commandLimitSeconds(pool.config, command.type, index, item.limitSeconds),
    })),
    // checkpointIntervalSeconds, and heartbeatIntervalSeconds: the cadence the pool's grace period and
    // checkpoint timeout need, which the SDK beats at unless told otherwise.
    ...claimedCadence(pool.config),
    lastCheckpoint: previousCheckpoint ? { ...previousCheckpoint, at: toIso(previousCheckpoint.at) } : null,
  };
}

/**
 * A reservation this old belongs to a claim that crashed or whose caller gave up: on AWS the claim's
 * Lambda is stopped at 29 s (its timeout, pinned below this by the infra test), so a call that is
 * still going can no longer take an item once its reservation is retaken.
 */
export const ABANDONED_AFTER_MS = 30_000;

/**
 * `POST /pools/{poolId}/claims`: a conditional write `available → running, attempt + 1`. Of two
 * agents racing for one item exactly one wins; the other moves on to another item. Undefined
 * when nothing is available (204).
 */
export async function claimPoolItem(deps: ManagerDeps, poolId: string, claim: ClaimInput, tenant: string = DEFAULT_TENANT) {
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
 * receipt is reserved naming the item about to be taken, and the attempt taken carries the claim id,
 * so a retry finds it even if the first call crashed right after taking it. A retry while the first
 * is still choosing is told to retry (503 `busy`); a reservation abandoned for 30 s is retaken.
 */
async function claimOnce(deps: ManagerDeps, pool: Pool, claim: ClaimInput, claimId: string) {
  const found = await deps.pools.getClaimReceipt(pool.poolId, claim.agentId, claimId);
  if (found) {
    const named = await deps.pools.getItem(pool.poolId, found.itemId);
    const taken = named && claimedAttempt(named, { agentId: claim.agentId, claimId });
    if (named && taken?.running) {
      // On a stopped pool the repeat is answered as any claim there, and the attempt it took is told
      // to stop now: the first call may have been cut off before it did so (review findings).
      await assertPoolStillRunning(deps, pool, named.itemId);
      // Its attempt is already being stopped (its deadline passed while the answer was lost): the
      // agent holds nothing to clean up, so it is told the attempt is over, not handed its past deadline.
      if (named.run?.terminating) throw new ClaimEndedError(claimId, found.itemId, taken.attempt);
      return claimView(deps, pool, named);
    }
    if (taken) throw new ClaimEndedError(claimId, found.itemId, taken.attempt);
    if (deps.clock.now() - found.reservedAt < ABANDONED_AFTER_MS) throw new ClaimInFlightError(claimId);
  }
  assertClaimable(pool);
  let reserved: ClaimReceipt | undefined;
  const nameOnReceipt = async (itemId: string) => {
    if (reserved?.itemId === itemId) return;
    const next = { poolId: pool.poolId, agentId: claim.agentId, claimId, reservedAt: reserved?.reservedAt ?? deps.clock.now(), itemId };
    const named = reserved ? await deps.pools.moveClaim(reserved, itemId) : await deps.pools.reserveClaim(next, found);
    if (!named) throw new ClaimInFlightError(claimId);
    reserved = next;
  };
  // Nothing to take: answered without a receipt, so idle agents polling for work write nothing.
  const view = await takeAnItem(deps, pool, claim, nameOnReceipt);
  if (!view && reserved) await deps.pools.releaseClaim(reserved);
  return view;
}

/** `beforeTaking`: called with each candidate before it is taken (a claim with an id names it on its receipt). */
async function takeAnItem(deps: ManagerDeps, pool: Pool, claim: ClaimInput, beforeTaking?: (itemId: string) => Promise<void>) {
  // `claimItem` takes nothing from a pool that is not RUNNING: a COMPLETED one's candidates (index lag,
  // a redrive not yet reopening it) would each cost an index page and an item read for no claim. The
  // pool was read consistently, so one a redrive reopened before this claim reads RUNNING.
  if (pool.status !== 'RUNNING') return undefined;
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    const ids = await deps.pools.availableItemIds(pool.poolId, CANDIDATES);
    if (ids.length === 0) return undefined;
    const candidate = ids[Math.floor(Math.random() * ids.length)] as string;
    await beforeTaking?.(candidate);
    const now = deps.clock.now();
    const { item, decision } = await decideItem(deps, pool.poolId, candidate, (current) => claimItem(current, pool, claim, now));
    if (decision.ignored === undefined) {
      await assertPoolStillRunning(deps, pool, item.itemId);
      deps.telemetry.info('item claimed', { poolId: pool.poolId, itemId: item.itemId, attempt: item.attempt, agentId: claim.agentId, region: deps.region });
      return claimView(deps, pool, item);
    }
  }
  return undefined;
}

/**
 * The pool was read RUNNING before the take; a cancel (or a failure) may have landed in between and
 * its wake pass read the running items without this one. Its attempt is then told to terminate at
 * once, as the pass would have (so the item returns to the stopped pool), and the claim answered as
 * on a stopped pool.
 */
async function assertPoolStillRunning(deps: ManagerDeps, pool: Pool, itemId: string): Promise<void> {
  const stopped = await deps.pools.getPool(pool.poolId);
  if (!stopped || !poolIsStopped(stopped)) return;
  await decideItem(deps, pool.poolId, itemId, (current) => onItemWakeUp(current, stopped, deps.clock.now()));
  throw new PoolFinishedError(pool.poolId, stopped.status);
}
