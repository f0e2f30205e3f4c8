import type { ManagerDeps } from '../../app/manager-deps.js';
import { createPool } from '../../app/pools/create-pool.js';
import { listDeadLetters, retryDeadLetter } from '../../app/pools/dead-letters.js';
import { answerEscalation, listEscalations } from '../../app/pools/escalations.js';
import type { EscalationAnswer } from '../../domain/pools/item-answers.js';
import { ESCALATION_OPTIONS } from '../../domain/pools/pool-item.js';
import { CLIENT_RETRY, NO_RETRY } from '../world/delivery.js';
import type { SimNodes } from '../world/nodes.js';
import type { PoolSpec } from '../world/plan.js';
import { SIM_EPOCH, type RetryPolicy, type World } from '../world/world.js';
import { SimAgent } from './sim-agent.js';

/**
 * How long a pool's human keeps answering and redriving. Its agents work on to the end of the run,
 * which settles like the jobs, so every item the human last made available can still end.
 */
export const POOL_ACTIVE_MS = 30 * 60_000;
/** The limit a human gives on `increase_timeout` or a redrive: more than any item's work, even slow. */
const HUMAN_LIMIT_SECONDS = 1_200;
/** A client resends the same create (idempotent on poolId) until it lands. */
const RECREATE: RetryPolicy = { delayMs: () => 30_000, maxAttempts: 20 };

export const poolActiveUntil = (pool: PoolSpec): number => SIM_EPOCH + pool.createAtMs + POOL_ACTIVE_MS;

/** Creates each pool of the plan at its time in its region, then starts its agents (until `horizon`) and its human. */
export function schedulePools(world: World, nodes: SimNodes, horizon: number): Map<string, SimAgent[]> {
  const agentsByPool = new Map<string, SimAgent[]>();
  for (const pool of world.plan.pools) {
    const node = nodes.regions.get(pool.region);
    if (!node) continue;
    let agents: SimAgent[] | undefined;
    world.at(SIM_EPOCH + pool.createAtMs, `create ${pool.poolId}`, async () => {
      world.log(`client creates ${pool.poolId} in ${pool.region}: ${pool.items.length} items, ${pool.agents.length} agents, ${JSON.stringify(pool.config)}`);
      await world.invoke(pool.region, 'create-pool', async () => {
        world.calls.httpRequests.client++;
        const items = pool.items.map((item, n) => ({ itemId: item.itemId, input: { n } }));
        await world.invocations.answerOf(pool.region, createPool(node.deps, { poolId: pool.poolId, items, config: pool.config }));
        if (agents) return;
        agents = pool.agents.map((spec) => new SimAgent(world, pool, spec, node.deps, node.observePools, horizon));
        agentsByPool.set(pool.poolId, agents);
        for (const agent of agents) agent.start();
        if (pool.humanEveryMs) new SimHuman(world, pool, pool.humanEveryMs, node.deps, agents).start();
      }, RECREATE);
    });
  }
  return agentsByPool;
}

/**
 * The operator: every so often answers each pending escalation (any of the four options) and
 * redrives each dead-lettered item once with a longer limit, then wakes the pool's idle agents.
 */
class SimHuman {
  private readonly redriven = new Set<string>();
  /** How many times the human raised each item's limit. */
  private readonly timeoutsRaised = new Map<string, number>();

  constructor(
    private readonly world: World,
    private readonly pool: PoolSpec,
    private readonly everyMs: number,
    private readonly deps: ManagerDeps,
    private readonly agents: readonly SimAgent[],
  ) {}

  start(): void {
    this.schedule();
  }

  private schedule(): void {
    if (this.world.now + this.everyMs > poolActiveUntil(this.pool)) return;
    this.world.after(this.everyMs, `human ${this.pool.poolId}`, async () => {
      const acted = (await this.answerEscalations()) + (await this.redriveDeadLetters());
      if (acted > 0) for (const agent of this.agents) agent.wake();
      this.schedule();
    });
  }

  private async answerEscalations(): Promise<number> {
    const pending: string[] = [];
    await this.call('list-escalations', NO_RETRY, async () => {
      const { escalations } = await this.world.invocations.answerOf(this.pool.region, listEscalations(this.deps, this.pool.poolId));
      pending.push(...escalations.filter((e) => e.status === 'pending').map((e) => e.escalationId));
    });
    for (const escalationId of pending) {
      const answer = this.answerFor(escalationId);
      this.world.log(`human answers ${escalationId}: ${answer.option}`);
      await this.call('answer-escalation', CLIENT_RETRY, async () => void (await answerEscalation(this.deps, escalationId, answer)));
    }
    return pending.length;
  }

  private answerFor(escalationId: string): EscalationAnswer {
    const itemId = escalationId.split('~')[1] ?? 'item';
    // A subtask of a subtask is not split again: the ids stay short.
    const options = itemId.split('.').length > 2 ? ESCALATION_OPTIONS.filter((o) => o !== 'split') : ESCALATION_OPTIONS;
    const option = this.world.rng.pick(options);
    // More than the item has: a redrive's limit, or an earlier answer's (an answer that would not raise it is refused).
    if (option === 'increase_timeout') {
      const raises = (this.timeoutsRaised.get(itemId) ?? 0) + 1;
      this.timeoutsRaised.set(itemId, raises);
      return { option, timeoutSeconds: HUMAN_LIMIT_SECONDS * (1 + raises) };
    }
    if (option === 'clarify') return { option, clarification: 'do the smallest useful part' };
    if (option === 'split') return { option, subtasks: [{ itemId: `${itemId}.a` }, { itemId: `${itemId}.b` }] };
    return { option };
  }

  private async redriveDeadLetters(): Promise<number> {
    const dead: string[] = [];
    await this.call('list-dlq', NO_RETRY, async () => {
      const page = await this.world.invocations.answerOf(this.pool.region, listDeadLetters(this.deps, this.pool.poolId, {}));
      dead.push(...page.items.map((item) => item.itemId).filter((id) => !this.redriven.has(id)));
    });
    for (const itemId of dead) {
      this.redriven.add(itemId);
      if (!this.world.rng.chance(0.5)) continue;
      this.world.log(`human redrives ${this.pool.poolId}/${itemId}`);
      // Wakes the agents whenever the redrive is applied: a copy the network delivers late (seed 124)
      // re-opens an item, and its pool, after the agents went idle on the pool's completion.
      await this.call('retry-dlq', CLIENT_RETRY, async () => {
        await this.world.invocations.answerOf(this.pool.region, retryDeadLetter(this.deps, this.pool.poolId, itemId, HUMAN_LIMIT_SECONDS));
        for (const agent of this.agents) agent.wake();
      });
    }
    return dead.length;
  }

  private async call(route: string, retry: RetryPolicy, run: () => Promise<void>): Promise<void> {
    this.world.calls.httpRequests.client++;
    await this.world.invoke(this.pool.region, route, run, retry);
  }
}
