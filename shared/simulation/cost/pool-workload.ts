import { claimedCadence } from '../../domain/pools/heartbeat-cadence.js';
import { resolvePoolConfig, type PoolConfigInput } from '../../domain/pools/pool-config.js';
import { sdkAgentHeartbeatMs } from '../../sdk/agent-heartbeat.js';
import { horizonOf, runPlan, SETTLE_MS, type RunResult } from '../run-plan.js';
import { REGION_NAMES } from '../world/generate-plan.js';
import { NO_RATES, type Plan } from '../world/plan.js';
import { SIM_EPOCH } from '../world/world.js';
import { combine, scale, type Usage } from './usage.js';
import { usageOf } from './vigil-usage.js';

/** The cost model's agent pool: items worked by well-behaved agents, one template command each. */
export interface PoolWorkload {
  name: string;
  items: number;
  agents: number;
  /** One attempt's work per item. */
  workMs: number;
  config: PoolConfigInput & { checkpoint_timeout_secs: number; checkpoint_interval_secs: number };
  /** The agents' `heartbeatIntervalMs` (`vigil run --heartbeat`); absent, the SDK's default: the cadence the claim answers. */
  heartbeatIntervalMs?: number;
}

export const POOL_WORKLOAD: PoolWorkload = {
  name: 'agent pool, 1,000 items × 4 min, 50 agents, 1 command',
  items: 1_000,
  agents: 50,
  workMs: 4 * 60_000,
  config: {
    agent_timeout_secs: 600,
    agent_template: [{ claude: '/analyze ${item}' }],
    timeout_config: { timeout_policy: 'hybrid', command_timeouts: { claude: 480 } },
    checkpoint_interval_secs: 120,
    checkpoint_timeout_secs: 60,
  },
};

/**
 * How often the workload's agents beat: as the shipped SDK would, given their interval and what a claim
 * in the pool answers (its cadence, a third of the lesser of grace period and checkpoint timeout: 10 s here).
 */
export const agentHeartbeatMs = (workload: PoolWorkload): number => sdkAgentHeartbeatMs(claimedCadence(resolvePoolConfig(workload.config)), workload.heartbeatIntervalMs);

/** The `vigil run --heartbeat S` the report prices beside the default: the SDK's old fixed default, and a cadence too slow for the grace period. */
export const POOL_HEARTBEAT_LEVERS_SECS = [5, 30] as const;

/**
 * What a slower cadence gives up: the least of the cleanup grace period left to an agent that hears
 * a `terminate` it could not see coming (its pool cancelled or failed, its attempt stalled) a whole
 * heartbeat after the stop. `vigil run` asks about the deadlines it knows as they come, whatever the cadence.
 */
export const worstGraceLeftMs = (workload: PoolWorkload): number =>
  Math.max(0, resolvePoolConfig(workload.config).timeout_config.cleanup_grace_period_secs * 1000 - agentHeartbeatMs(workload));

/** The workload as a plan (one region, no faults, no human), with `items` items. */
export function poolWorkloadPlan(workload: PoolWorkload, items = workload.items): Plan {
  return {
    seed: 1,
    regions: REGION_NAMES.slice(0, 1),
    jobs: [],
    faults: [],
    rates: NO_RATES,
    progressEveryMs: 10_000,
    pools: [
      {
        poolId: 'cost-pool',
        region: REGION_NAMES[0] ?? 'us-east-1',
        createAtMs: 0,
        items: Array.from({ length: items }, (_, i) => ({ itemId: `item-${i}`, workMs: workload.workMs })),
        config: workload.config,
        sdkAgentHeartbeatMs: agentHeartbeatMs(workload),
        agents: Array.from({ length: workload.agents }, (_, a) => ({ agentId: `agent-${a}`, kind: 'agent' as const, behaviour: 'normal' as const, faultAfterMs: 0, faultForMs: 0 })),
      },
    ],
  };
}

export interface PoolMeasurement {
  perItem: Usage;
  /** Heartbeats, checkpoints and other agent calls per item, as the simulator counted them. */
  agentCallsPerItem: number;
  checkpointsPerItem: number;
}

/**
 * Runs the pool through the simulator, and the same world with no pool for as long; the difference
 * per item is what an item costs. The 1,000-item run counts calls only: the pool invariants are
 * checked on the CI seeds' pools (re-reading 1,000 items after every step would dominate the run).
 */
export async function measurePool(workload: PoolWorkload): Promise<PoolMeasurement> {
  const plan = poolWorkloadPlan(workload);
  // Long enough for every item: the agents work through the pool in rounds, a minute of slack each.
  const horizonMs = Math.max(horizonOf(plan) - SIM_EPOCH, Math.ceil(workload.items / workload.agents) * (workload.workMs + 60_000) + SETTLE_MS);
  const [loaded, idle] = await Promise.all([runPlan(plan, { horizonMs, checkInvariants: false }), runPlan({ ...plan, pools: [] }, { horizonMs })]);
  const completed = count(loaded, ':pool-complete');
  if (completed !== workload.items) throw new Error(`cost workload ${workload.name}: ${completed} of ${workload.items} items completed`);
  const perItem = scale(combine(usageOf(loaded), usageOf(idle), -1), 1 / workload.items);
  return { perItem, agentCallsPerItem: agentCalls(loaded) / workload.items, checkpointsPerItem: count(loaded, ':pool-checkpoint') / workload.items };
}

const count = (result: RunResult, suffix: string) => Object.entries(result.calls.lambdaInvocations).reduce((sum, [name, n]) => sum + (name.endsWith(suffix) ? n : 0), 0);
const agentCalls = (result: RunResult) => Object.entries(result.calls.lambdaInvocations).reduce((sum, [name, n]) => sum + (name.includes(':pool-') ? n : 0), 0);
