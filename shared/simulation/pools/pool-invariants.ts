import { poolKey } from '../../adapters/aws/dynamo-pool-store.js';
import { itemKey } from '../../adapters/aws/pool-keys.js';
import { attemptWakeUpAt } from '../../domain/pools/item-wake-up.js';
import { poolIsStopped, type Pool } from '../../domain/pools/pool.js';
import { ITEM_BOUNDS, type ItemState, type PoolItem } from '../../domain/pools/pool-item.js';
import type { DeadSweeps } from '../world/dead-sweeps.js';
import { detectionBoundMs } from '../world/detection-bound.js';
import { ItemVersions, UNCHANGED } from '../world/item-versions.js';
import { JOBS_TABLE, type SimNodes } from '../world/nodes.js';
import type { PoolSpec } from '../world/plan.js';
import type { World } from '../world/world.js';
import type { ObedientAttempt, SimAgent } from './sim-agent.js';
import { storedBytes } from '../../domain/stored-size.js';

/** Where an item may end (contract): `split` hands its work to its subtasks, which must end too. */
const ENDS: ReadonlySet<ItemState> = new Set(['succeeded', 'failed', 'skipped', 'dlq', 'escalated', 'split']);
/** States nothing leaves: a result, a skip or a split is never undone. */
const FINAL: ReadonlySet<ItemState> = new Set(['succeeded', 'failed', 'skipped', 'split']);

export interface Report {
  (invariant: string, id: string | undefined, message: string): void;
}

/**
 * The pool invariants, checked after every step through the real pool adapter on the uncounted
 * view of each region's store: every due transition of an attempt (deadline, command deadline,
 * checkpoint window, end of grace, a stopped pool) happens within the stated detection bound; a
 * final item never changes; at the end no item is lost, running or left available in a pool
 * that still runs.
 */
export class PoolInvariants {
  private readonly pools = new Map<string, Pool>();
  private readonly items = new Map<string, Map<string, PoolItem>>();
  /** Pools and items by region, as last read: one that did not change is not read and checked again. */
  private readonly versions = new Map<string, ItemVersions>();

  constructor(
    private readonly world: World,
    private readonly nodes: SimNodes,
    /** Each pool's agents, once it was created. */
    private readonly agents: ReadonlyMap<string, readonly SimAgent[]>,
    private readonly report: Report,
    private readonly deadSweeps: DeadSweeps,
  ) {}

  private bound: number | undefined;

  private get boundMs(): number {
    if (this.bound !== undefined) return this.bound;
    const first = this.nodes.regions.values().next().value;
    if (!first) throw new Error('no regions');
    this.bound = detectionBoundMs('local_authority', first.deps.policy);
    return this.bound;
  }

  /** `written`: partition keys each region's store wrote since the last step. */
  async afterStep(written: ReadonlyMap<string, ReadonlySet<string>>): Promise<void> {
    for (const spec of this.world.plan.pools) {
      const keys = written.get(spec.region);
      if (keys && [...keys].some((key) => key.endsWith(`#${spec.poolId}`))) await this.refresh(spec);
      this.checkDue(spec);
      this.checkAgentsStop(spec);
    }
  }

  /**
   * Every agent learns to stop: a well-behaved agent lets go of an attempt within three heartbeats
   * of it being told to terminate or being ended (its heartbeat answers `terminate`, a result is refused),
   * once a beat sent after that has been answered: beats whose invocations crash (the crash fault) teach
   * nothing, so at a high crash rate a run of them only delays the lesson. An agent that sent no beat at
   * all in three heartbeats since then (or since it took the attempt on, if later) was silent, not
   * unlucky: it is held to the same three.
   */
  private checkAgentsStop(spec: PoolSpec): void {
    const items = this.items.get(spec.poolId);
    if (!items) return;
    for (const agent of this.agents.get(spec.poolId) ?? []) {
      const held = agent.obedientAttempt();
      const item = held && items.get(held.itemId);
      if (!held || !item) continue;
      const live = item.run?.attempt === held.attempt ? item.run : undefined;
      const stoppedAt = live ? live.terminating?.since : item.history.find((entry) => entry.attempt === held.attempt)?.endedAt ?? item.run?.startedAt;
      if (stoppedAt !== undefined && this.world.now > stoppedAt + held.learnsWithinMs && (heard(held, stoppedAt) || silent(held, stoppedAt, this.world.now))) {
        this.report(
          'agent-learns-to-stop',
          `${spec.poolId}/${item.itemId}`,
          `${agent.agentId} still works on attempt ${held.attempt}, ${live ? 'told to terminate' : 'over'} since ${Math.round((this.world.now - stoppedAt) / 1000)} s${silent(held, stoppedAt, this.world.now) ? ', sending no heartbeat since' : ''} (item ${item.state}, attempt ${item.attempt})`,
        );
      }
    }
  }

  private async refresh(spec: PoolSpec): Promise<void> {
    const node = this.nodes.regions.get(spec.region);
    if (!node) return;
    const observe = node.observePools;
    let versions = this.versions.get(spec.region);
    if (!versions) this.versions.set(spec.region, (versions = new ItemVersions(node.dynamo, JOBS_TABLE)));
    const pool = await versions.read([spec.poolId], poolKey, () => observe.getPool(spec.poolId));
    if (!pool) return;
    if (pool !== UNCHANGED) this.pools.set(spec.poolId, pool);
    const known = this.items.get(spec.poolId) ?? new Map<string, PoolItem>();
    this.items.set(spec.poolId, known);
    const ids = this.expectedIds(spec).map((itemId) => ({ poolId: spec.poolId, itemId }));
    // Only items that changed: one read again would pass the same checks as when it was last read.
    const changed = await versions.read(ids, (id) => itemKey(id.poolId, id.itemId), (read) => observe.getItems(read));
    for (const item of changed === UNCHANGED ? [] : changed) {
      const before = known.get(item.itemId);
      if (before && FINAL.has(before.state) && item.state !== before.state) {
        this.report('pool-item-final', `${spec.poolId}/${item.itemId}`, `${before.state} became ${item.state}`);
      }
      this.checkBounds(spec, item);
      known.set(item.itemId, item);
    }
  }

  /**
   * The bounds that keep an item far below 400 KB whatever agents send (`ITEM_BOUNDS`): a bounded
   * history, a few late results per attempt each kept whole only when small, payloads of 32 KB.
   * Checked on every version of an item (each item read that changed), so a bound that slips is seen
   * long before a write is refused.
   */
  private checkBounds(spec: PoolSpec, item: PoolItem): void {
    const bytes = storedBytes;
    const broken: string[] = [];
    if (item.history.length > ITEM_BOUNDS.history) broken.push(`${item.history.length} history entries`);
    for (const entry of item.history) {
      const late = entry.lateResults ?? [];
      if (late.length > ITEM_BOUNDS.lateResultsPerAttempt) broken.push(`${late.length} late results on attempt ${entry.attempt}`);
      for (const result of late) if (bytes(result.result) > ITEM_BOUNDS.lateResultBytes) broken.push(`a ${bytes(result.result)} B late result kept whole`);
    }
    for (const [name, value] of Object.entries({ input: item.input, result: item.result, partialResult: item.partialResult, checkpoint: item.lastCheckpoint?.state })) {
      if (bytes(value) > ITEM_BOUNDS.payloadBytes) broken.push(`a ${bytes(value)} B ${name}`);
    }
    if (broken.length > 0) this.report('item-bounds', `${spec.poolId}/${item.itemId}`, `past ITEM_BOUNDS: ${broken.join(', ')}`);
  }

  /** The plan's items and every subtask a split created so far. */
  private expectedIds(spec: PoolSpec): string[] {
    const ids = new Set(spec.items.map((item) => item.itemId));
    for (const item of this.items.get(spec.poolId)?.values() ?? []) for (const sub of item.splitInto ?? []) ids.add(sub);
    return [...ids];
  }

  private checkDue(spec: PoolSpec): void {
    const pool = this.pools.get(spec.poolId);
    if (!pool) return;
    const now = this.world.now;
    for (const item of this.items.get(spec.poolId)?.values() ?? []) {
      const run = item.run;
      if (!run) continue;
      const dueAt = owedAt(pool, run);
      const bound = this.boundFor(spec, dueAt);
      if (now > dueAt + bound) {
        this.report(
          'pool-no-leak',
          `${spec.poolId}/${item.itemId}`,
          `attempt ${run.attempt} (${run.terminating ? `terminating, ${run.terminating.reason.kind}` : 'running'}) owed a transition at ${new Date(dueAt).toISOString()}, ${Math.round((now - dueAt) / 1000)} s ago (bound ${bound / 1000} s)`,
        );
      }
    }
  }

  /**
   * After the run: every item exists and ended; only a FAILED or CANCELLED pool leaves items
   * available. An attempt claimed shortly before the end and owing nothing yet is in flight, not
   * unsettled: a plan may give its agents more work than the run's length (every overdue
   * transition is `pool-no-leak`'s, checked after each step).
   */
  async atEnd(): Promise<void> {
    for (const spec of this.world.plan.pools) {
      await this.refresh(spec);
      const pool = this.pools.get(spec.poolId);
      if (!pool) {
        this.report('pool-lost', spec.poolId, 'the pool was never created');
        continue;
      }
      const items = this.items.get(spec.poolId) ?? new Map<string, PoolItem>();
      for (const itemId of this.expectedIds(spec)) {
        const item = items.get(itemId);
        const id = `${spec.poolId}/${itemId}`;
        if (!item) this.report('pool-item-lost', id, 'the item is not in the store');
        else if (!ENDS.has(item.state) && !(item.state === 'available' && poolIsStopped(pool)) && !this.inFlight(spec, pool, item)) {
          this.report('pool-item-unsettled', id, `still ${item.state}${item.reason ? ` (${item.reason})` : ''} at the end, attempt ${item.attempt}, pool ${pool.status}`);
        }
      }
      const open = [...items.values()].some((item) => item.state === 'available' || item.state === 'running' || item.state === 'escalated');
      if (!open && pool.status === 'RUNNING') this.report('pool-completion-lost', spec.poolId, 'every item ended, the pool is still RUNNING');
    }
  }

  private inFlight(spec: PoolSpec, pool: Pool, item: PoolItem): boolean {
    if (item.state !== 'running' || item.run === undefined) return false;
    const dueAt = owedAt(pool, item.run);
    return this.world.now <= dueAt + this.boundFor(spec, dueAt);
  }

  /** The stated bound for a transition due at `dueAt`, with the pool's region's sweep runs that died after it. */
  private boundFor(spec: PoolSpec, dueAt: number): number {
    return this.deadSweeps.boundFor(spec.region, dueAt, this.boundMs);
  }
}

/** When an attempt next owes a transition: its own wake-up, or its pool's stop while it has not been told. */
function owedAt(pool: Pool, run: NonNullable<PoolItem['run']>): number {
  const dueAt = attemptWakeUpAt(run, pool.config);
  return poolIsStopped(pool) && !run.terminating ? Math.min(dueAt, pool.finishedAt ?? dueAt) : dueAt;
}

/** A beat sent since the attempt stopped has been answered: the agent could have learned. */
const heard = (held: ObedientAttempt, stoppedAt: number): boolean => (held.beatAnsweredAt ?? -Infinity) >= stoppedAt;

/** No beat sent since the attempt stopped, for three heartbeats since then or since the agent took it on. */
const silent = (held: ObedientAttempt, stoppedAt: number, now: number): boolean =>
  (held.beatSentAt ?? -Infinity) < stoppedAt && now > Math.max(stoppedAt, held.heldSince) + held.learnsWithinMs;
