import { runPlan } from './run-plan.js';

/** The shrinker's usual question: does the plan still break this invariant? */
export const breaks = (invariant: string) => async (candidate: Plan) =>
  (await runPlan(candidate)).violations.some((v) => v.invariant === invariant);
import { NO_RATES, type Plan, type PoolSpec, type Rates } from './world/plan.js';

/**
 * Makes a failing plan smaller while it still breaks the same invariant: drops jobs, then
 * scheduled faults, then pools, their agents and items, then zeroes message-fault rates, one at a
 * time (each run is deterministic).
 */
export async function shrink(plan: Plan, stillFails: (candidate: Plan) => Promise<boolean>, maxRuns = 200): Promise<{ plan: Plan; runs: number }> {
  let runs = 0;
  const fails = async (candidate: Plan) => {
    runs++;
    return stillFails(candidate);
  };
  let current = plan;
  const tryEach = async <T>(items: () => readonly T[], without: (p: Plan, item: T) => Plan) => {
    for (let i = 0; i < items().length && runs < maxRuns; ) {
      const item = items()[i] as T;
      const candidate = without(current, item);
      if (await fails(candidate)) current = candidate;
      else i++;
    }
  };
  await tryEach(() => current.jobs, (p, job) => ({ ...p, jobs: p.jobs.filter((j) => j !== job) }));
  await tryEach(() => current.faults, (p, fault) => ({ ...p, faults: p.faults.filter((f) => f !== fault) }));
  await tryEach(() => current.pools, (p, pool) => ({ ...p, pools: p.pools.filter((q) => q !== pool) }));
  // Within each pool left: its agents (one stays), then its items (one stays).
  const inPool = (poolId: string, change: (pool: PoolSpec) => PoolSpec) => (p: Plan): Plan => ({ ...p, pools: p.pools.map((q) => (q.poolId === poolId ? change(q) : q)) });
  for (const { poolId } of current.pools) {
    const pool = () => current.pools.find((q) => q.poolId === poolId);
    await tryEach(() => ((pool()?.agents.length ?? 0) > 1 ? (pool()?.agents ?? []) : []), (p, agent) => inPool(poolId, (q) => ({ ...q, agents: q.agents.filter((a) => a !== agent) }))(p));
    await tryEach(() => ((pool()?.items.length ?? 0) > 1 ? (pool()?.items ?? []) : []), (p, item) => inPool(poolId, (q) => ({ ...q, items: q.items.filter((i) => i !== item) }))(p));
  }
  for (const rate of Object.keys(NO_RATES) as Array<keyof Rates>) {
    if (current.rates[rate] === 0 || runs >= maxRuns) continue;
    const candidate = { ...current, rates: { ...current.rates, [rate]: 0 } };
    if (await fails(candidate)) current = candidate;
  }
  return { plan: current, runs };
}
