import { TIMEOUT_ACTIONS, TIMEOUT_POLICIES, type PoolConfigInput } from '../../domain/pools/pool-config.js';
import type { AgentBehaviour, AgentSpec, FaultKind, PoolSpec } from './plan.js';
import type { Rng } from './rng.js';

/** Each agent fault kind and the behaviour it puts into the world. */
const AGENT_FAULTS: ReadonlyArray<[FaultKind, AgentBehaviour]> = [
  ['agent-dies', 'dies'],
  ['agent-slow', 'slow'],
  ['agent-ignores-terminate', 'ignores-terminate'],
  ['agent-stops-checkpointing', 'stops-checkpointing'],
  ['agent-late-result', 'late-result'],
  ['agent-gives-back', 'gives-back'],
];

/**
 * A pool's config drawn small enough for a CI seed (minutes, not the seeds' 15 min defaults), over
 * every timeout policy and action, with templates that have per-type and per-index command limits.
 */
function drawConfig(rng: Rng): PoolConfigInput {
  const template = Array.from({ length: rng.int(0, 2) }, (): Record<string, string> =>
    rng.chance(0.5) ? { claude: '/analyze ${item}' } : { shell: 'validate ${item.id}' },
  );
  return {
    ...(rng.chance(0.7) ? { agent_timeout_secs: rng.int(60, 240) } : {}),
    delegation_timeout_secs: rng.int(60, 240),
    agent_template: template,
    timeout_config: {
      timeout_policy: rng.pick(TIMEOUT_POLICIES),
      timeout_action: rng.pick(TIMEOUT_ACTIONS),
      cleanup_grace_period_secs: rng.int(0, 60),
      command_timeouts: { claude: rng.int(30, 150), shell: rng.int(20, 90), ...(rng.chance(0.3) ? { claude_0: rng.int(30, 150) } : {}) },
    },
    checkpoint_interval_secs: rng.int(30, 120),
    checkpoint_timeout_secs: rng.int(15, 45),
    stall_threshold: rng.int(1, 3),
    timeout_escalation: rng.int(1, 3),
  };
}

/** `count` pools of a seed, each in one region: items whose work often overruns the limits, and agents with the chosen faults. */
export function generatePools(rng: Rng, seed: number, count: number, regions: readonly string[], faults: readonly FaultKind[]): PoolSpec[] {
  const behaviours: AgentBehaviour[] = ['normal', ...AGENT_FAULTS.filter(([kind]) => faults.includes(kind)).map(([, behaviour]) => behaviour)];
  const pools: PoolSpec[] = [];
  for (let p = 0; p < count; p++) {
    const poolId = `pool-${seed}-${p}`;
    const config = drawConfig(rng);
    const items = Array.from({ length: rng.int(2, 6) }, (_, i) => ({ itemId: `it-${i}`, workMs: rng.int(10, 240) * 1000 }));
    const agents: AgentSpec[] = Array.from({ length: rng.int(1, 3) }, (_, a) => ({
      agentId: `ag-${p}-${a}`,
      kind: rng.chance(0.2) ? 'expert' : 'agent',
      // The first agent is well-behaved, so every item can end; the others bring the faults.
      behaviour: a === 0 || rng.chance(0.3) ? 'normal' : rng.pick(behaviours),
      faultAfterMs: rng.int(0, 300) * 1000,
      faultForMs: rng.int(3, 12) * 60_000,
    }));
    const humanEveryMs = rng.chance(0.7) ? rng.int(2, 8) * 60_000 : undefined;
    pools.push({ poolId, region: rng.pick(regions), createAtMs: rng.int(0, 120) * 1000, items, config, agents, ...(humanEveryMs ? { humanEveryMs } : {}) });
  }
  return pools;
}
