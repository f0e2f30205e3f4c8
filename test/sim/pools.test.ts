import { describe, expect, it } from 'vitest';
import { claimPoolItem } from '../../shared/app/pools/claim-item.js';
import { createPool } from '../../shared/app/pools/create-pool.js';
import { PoolInvariants } from '../../shared/simulation/pools/pool-invariants.js';
import { DeadSweeps } from '../../shared/simulation/world/dead-sweeps.js';
import { isStaleFor, withStaleAttemptCheck } from '../../shared/simulation/pools/stale-attempt-guard.js';
import { runPlan } from '../../shared/simulation/run-plan.js';
import { shrink } from '../../shared/simulation/shrink.js';
import { generatePlan } from '../../shared/simulation/world/generate-plan.js';
import { buildNodes, type SimNodes } from '../../shared/simulation/world/nodes.js';
import { NO_RATES, type Plan } from '../../shared/simulation/world/plan.js';
import { World } from '../../shared/simulation/world/world.js';
import { CI_PLAN } from './support/seed-range.js';

const POOL_ONLY = { ...CI_PLAN, jobs: 0 };
const quiet = (plan: Plan): Plan => ({ ...plan, jobs: [], pools: plan.pools.slice(0, 1), faults: [], rates: NO_RATES });

/** A world with one region, one pool of one item claimed by one agent, and nothing scheduled. */
async function claimedWorld(): Promise<{ world: World; nodes: SimNodes; region: string }> {
  const world = new World(quiet(generatePlan(1, { ...POOL_ONLY, regions: 1 })));
  const nodes = await buildNodes(world);
  const [region, node] = [...nodes.regions][0] ?? [];
  if (!region || !node) throw new Error('no region');
  const pool = world.plan.pools[0];
  if (!pool) throw new Error('no pool');
  world.plan.pools[0] = { ...pool, region, items: [{ itemId: 'it-0', workMs: 1_000 }], config: { agent_timeout_secs: 60, checkpoint_interval_secs: 600 } };
  await createPool(node.deps, { poolId: pool.poolId, items: [{ itemId: 'it-0' }], config: { agent_timeout_secs: 60, checkpoint_interval_secs: 600 } });
  await claimPoolItem(node.deps, pool.poolId, { agentId: 'ag', kind: 'agent' });
  return { world, nodes, region };
}

/** `claimedWorld` under the pool invariants: `check()` runs them after a step, `end()` at the end of the run, `found` lists what they reported. */
async function watchedClaimedWorld(deadSweeps = new DeadSweeps()) {
  const { world, nodes, region } = await claimedWorld();
  const found: string[] = [];
  const invariants = new PoolInvariants(world, nodes, new Map(), (invariant) => void found.push(invariant), deadSweeps);
  const check = () => invariants.afterStep(new Map([[region, nodes.regions.get(region)?.dynamo.drainWrittenPartitions() ?? new Set<string>()]]));
  return { world, region, found, check, end: () => invariants.atEnd() };
}

describe('agent pools in the simulator', () => {
  it('a seed with pools replays byte for byte, and its trace shows the agents at work', async () => {
    // Prepare
    const plan = generatePlan(5, POOL_ONLY);
    // Act
    const [first, again] = await Promise.all([runPlan(plan, { keepTrace: true }), runPlan(plan, { keepTrace: true })]);
    // Assess
    expect(again.digest).toBe(first.digest);
    expect(first.trace.some((line) => / claims it-\d attempt 1$/.test(line))).toBe(true);
    expect(first.violations).toEqual([]);
  });

  // As the SDK and `vigil run` do: the claim answers `heartbeatIntervalSeconds`, a third of the shorter
  // of the grace period and the checkpoint timeout (the agents once beat every half checkpoint timeout).
  it.each([
    { grace: 30, checkpointTimeout: 15, cadenceMs: 5_000 },
    { grace: 6, checkpointTimeout: 45, cadenceMs: 2_000 },
  ])('an agent beats at the cadence its claim answers: grace $grace s, checkpoint timeout $checkpointTimeout s → every $cadenceMs ms', async ({ grace, checkpointTimeout, cadenceMs }) => {
    // Prepare: one well-behaved agent, one item of 120 s of work, no checkpoint request within it
    const plan = quiet(generatePlan(1, { ...POOL_ONLY, regions: 1 }));
    const [pool] = plan.pools;
    const [agent] = pool?.agents ?? [];
    if (!pool || !agent) throw new Error('no pool');
    const config = { agent_timeout_secs: 600, checkpoint_interval_secs: 600, checkpoint_timeout_secs: checkpointTimeout, timeout_config: { cleanup_grace_period_secs: grace } };
    plan.pools[0] = { ...pool, items: [{ itemId: 'it-0', workMs: 120_000 }], agents: [{ ...agent, behaviour: 'normal' }], config };
    // Act
    const result = await runPlan(plan);
    // Assess: a beat every cadence from the claim until the work ends, the last at the end taken by the outcome
    expect(result.violations).toEqual([]);
    expect(result.calls.lambdaInvocations[`${pool.region}:pool-heartbeat`]).toBe(120_000 / cadenceMs - 1);
  });

  it('with well-behaved agents and no faults every item ends (done, or timed out to its fate) with no violation', async () => {
    const plan = generatePlan(9, { ...POOL_ONLY, faults: [] });
    const result = await runPlan(plan, { keepTrace: true });
    expect(result.violations).toEqual([]);
    expect(result.trace.some((line) => line.includes(' completes '))).toBe(true);
  });

  it('an attempt past its deadline plus the detection bound with no transition is reported as a leak', async () => {
    // Prepare: the claim's wake-up is never delivered (the world's agenda is not run)
    const { world, found, check } = await watchedClaimedWorld();
    await check();
    // Act
    world.now += 60_000 + 70_000;
    await check();
    const atBound = [...found];
    world.now += 1;
    await check();
    // Assess
    expect(atBound).toEqual([]);
    expect(found).toEqual(['pool-no-leak']);
  });

  // The pool-heavy seed 706,937 once ended 166 s into an attempt claimed with a 204 s limit, and the
  // end check called it unsettled; the seed no longer ends so (not re-found over 700,001–720,000).
  it('an attempt that owes nothing yet when the run ends is in flight, not unsettled; one overdue past the bound is', async () => {
    // Prepare: the claim's first transition, its 60 s limit, is still ahead
    const { world, found, check, end } = await watchedClaimedWorld();
    await check();
    const claimedAt = world.now;
    // Act
    world.now = claimedAt + 30_000;
    await end();
    const inFlight = [...found];
    world.now = claimedAt + 60_000 + 70_000 + 1;
    await end();
    // Assess
    expect(inFlight).toEqual([]);
    expect(found).toEqual(['pool-item-unsettled']);
  });

  it("each of the region's sweep runs that died once the attempt was overdue gives it one more interval, as stated", async () => {
    // Prepare: the claim's deadline is 60 s on; the region's sweep dies before it is overdue, then twice after
    const deadSweeps = new DeadSweeps();
    const { world, region, found, check } = await watchedClaimedWorld(deadSweeps);
    await check();
    const dueAt = world.now + 60_000;
    for (const diedAt of [dueAt + 4_000, dueAt + 5_000, dueAt + 65_000]) deadSweeps.record(region, diedAt);
    deadSweeps.record('another-region', dueAt + 5_000);
    // Act
    world.now = dueAt + 70_000 + 2 * 60_000;
    await check();
    const atBound = [...found];
    world.now += 1;
    await check();
    // Assess
    expect(atBound).toEqual([]);
    expect(found).toEqual(['pool-no-leak']);
  });

  it('a stale attempt whose call changes the item is reported', async () => {
    // Prepare
    const { world, nodes, region } = await claimedWorld();
    const node = nodes.regions.get(region);
    const poolId = world.plan.pools[0]?.poolId ?? '';
    if (!node) throw new Error('no region');
    const lying = async () => {
      const item = await node.deps.pools.getItem(poolId, 'it-0');
      if (item) await node.deps.pools.saveItem({ ...item, state: 'succeeded' }, item.version);
    };
    // Act: attempt 0 is not the live one (attempt 1 is)
    await withStaleAttemptCheck(world, node.observePools, { poolId, itemId: 'it-0', attempt: 0, what: 'complete', mustNotChange: isStaleFor(0) }, lying);
    // Assess
    expect(world.staleChanges.map((c) => c.invariant)).toEqual(['stale-attempt']);
  });

  it('a call of an older attempt answered as the live one is reported, though it changed nothing; refused as stale or failed, it is not', async () => {
    // Prepare
    const { world, nodes, region } = await claimedWorld();
    const node = nodes.regions.get(region);
    const poolId = world.plan.pools[0]?.poolId ?? '';
    if (!node) throw new Error('no region');
    const heartbeat = (answeredAsLive: boolean) => ({ poolId, itemId: 'it-0', attempt: 0, what: 'heartbeat', mustNotChange: isStaleFor(0), answeredAsLive: () => answeredAsLive });
    // Act: attempt 0 is not the live one (attempt 1 is); neither call writes anything
    await withStaleAttemptCheck(world, node.observePools, heartbeat(false), async () => undefined);
    const afterNoLiveAnswer = world.staleChanges.length;
    await withStaleAttemptCheck(world, node.observePools, heartbeat(true), async () => undefined);
    // Assess
    expect(afterNoLiveAnswer).toBe(0);
    expect(world.staleChanges.map((c) => c.invariant)).toEqual(['stale-attempt']);
  });

  it('shrinking a pool failure keeps only the pool, agent and item it needs', async () => {
    // Prepare: a "failure" that needs the second pool's first agent and its last item.
    const plan = generatePlan(3, { ...CI_PLAN, pools: 2 });
    const pool = plan.pools[1];
    const agent = pool?.agents[0];
    const item = pool?.items.at(-1);
    const fails = async (candidate: Plan) =>
      candidate.pools.some((p) => p.poolId === pool?.poolId && p.agents.includes(agent as never) && p.items.includes(item as never));
    // Act
    const { plan: minimal } = await shrink(plan, fails);
    // Assess
    expect(minimal.jobs).toEqual([]);
    expect(minimal.pools.map((p) => ({ poolId: p.poolId, agents: p.agents, items: p.items }))).toEqual([{ poolId: pool?.poolId, agents: [agent], items: [item] }]);
  });
});
