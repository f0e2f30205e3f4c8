import { onItemWakeUp } from '../../domain/pools/advance-attempt.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import type { PoolStore } from '../../ports/pool-store.js';
import type { World } from '../world/world.js';

/** What decides an item's fate; history, stats, version and wake-up bookkeeping may change. */
const fateOf = (item: PoolItem) =>
  JSON.stringify([item.state, item.attempt, item.run, item.result, item.partialResult, item.lastCheckpoint, item.timeoutCount, item.limitSeconds, item.input, item.escalation]);

export interface AttemptInput {
  poolId: string;
  itemId: string;
  attempt: number;
  what: string;
  /** Whether this input, against the item as due by now, may change nothing (stale, or a result while terminating). */
  mustNotChange: (due: PoolItem) => boolean;
  /**
   * An agent's call: whether it was answered other than `stale_attempt`, the contract's answer to a
   * call of an older attempt. A call whose invocation failed (crashed) was answered nothing.
   */
  answeredAsLive?: () => boolean;
}

/**
 * Runs an input that carries an attempt number. When that attempt is no longer the item's live one
 * (or the input is refused by its state), the item may only move as its own due transitions move it
 * (every call and wake-up applies those first): a stale attempt never changes an item.
 */
export async function withStaleAttemptCheck(world: World, observe: PoolStore, input: AttemptInput, run: () => Promise<unknown>): Promise<void> {
  const [pool, before] = await Promise.all([observe.getPool(input.poolId), observe.getItem(input.poolId, input.itemId)]);
  if (!pool || !before) return void (await run());
  const startedAt = world.now;
  const due = onItemWakeUp(before, pool, startedAt).state;
  if (!input.mustNotChange(due)) return void (await run());
  try {
    await run();
  } finally {
    const after = await observe.getItem(input.poolId, input.itemId);
    // Changing nothing is not enough: an older attempt answered as the live one (200 `continue`)
    // keeps an agent at work that another attempt has taken over.
    if (input.answeredAsLive && input.attempt < due.attempt && input.answeredAsLive()) {
      world.staleChanges.push({
        invariant: 'stale-attempt',
        jobId: `${input.poolId}/${input.itemId}`,
        message: `${input.what} of attempt ${input.attempt} was answered as the live attempt; the latest is ${due.attempt}`,
      });
    }
    if (after && fateOf(after) !== fateOf(before) && !dueWithin(before, pool, startedAt, world.now).has(fateOf(after))) {
      world.staleChanges.push({
        invariant: 'stale-attempt',
        jobId: `${input.poolId}/${input.itemId}`,
        message: `${input.what} of attempt ${input.attempt} (latest ${due.attempt}, ${due.run ? (due.run.terminating ? 'terminating' : 'running') : 'over'}) changed the item: ${before.state} → ${after.state}`,
      });
    }
  }
}

/** A wake-up or call of an attempt that is not the item's live one. */
export const isStaleFor = (attempt: number) => (due: PoolItem) => due.attempt !== attempt || due.run === undefined;

/**
 * The fates the item's own due transitions give it at some instant of the run: the handler applies
 * them as of its clock, which moves on while it runs (`slow-calls`). Every millisecond is tried.
 */
function dueWithin(before: PoolItem, pool: Parameters<typeof onItemWakeUp>[1], fromMs: number, untilMs: number): Set<string> {
  const fates = new Set<string>();
  for (let at = fromMs; at <= untilMs; at++) fates.add(fateOf(onItemWakeUp(before, pool, at).state));
  return fates;
}
