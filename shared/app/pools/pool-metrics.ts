import { OTHER_COMMAND_TYPES } from '../../domain/pools/item-history.js';
import type { PoolItem } from '../../domain/pools/pool-item.js';
import { DEFAULT_TENANT } from '../../domain/tenant.js';
import { toIso } from '../../domain/time.js';
import type { ManagerDeps } from '../manager-deps.js';
import { loadOwnPool } from './pool-state-stores.js';

// Seed 003 §3: RunningAverage::new(100), timeout_trends capacity 1000.
const AVERAGE_OVER = 100;
const RECENT_TIMEOUTS = 1_000;
/**
 * Agents name the types of commands past the template, so the pool's types are unbounded even though
 * each item keeps a few: the answer names the most frequent and sums the rest under a key no command
 * type can spell (the one each item counts its own overflow under), so it stays far below Lambda's 6 MB.
 */
export const NAMED_COMMAND_TYPES = 100;

/**
 * `GET /pools/{poolId}/metrics`: summed from the items' bounded counters by query, so no item is a
 * hot spot; the store reads them from the pool's index, so on AWS they may lag a write by a moment.
 */
export async function poolMetrics(deps: ManagerDeps, poolId: string, tenant: string = DEFAULT_TENANT) {
  await loadOwnPool(deps, poolId, tenant);
  const items: Array<Pick<PoolItem, 'itemId' | 'stats'>> = [];
  let nextToken: string | undefined;
  do {
    const page = await deps.pools.itemStats(poolId, nextToken);
    items.push(...page.items);
    nextToken = page.nextToken;
  } while (nextToken);
  return summarize(items);
}

export function summarize(items: ReadonlyArray<Pick<PoolItem, 'itemId' | 'stats'>>) {
  let agentsStarted = 0;
  let agentsCompleted = 0;
  let agentTimeouts = 0;
  const command: Record<string, number> = {};
  for (const { stats } of items) {
    agentsStarted += stats.agentsStarted;
    agentsCompleted += stats.agentsCompleted;
    agentTimeouts += stats.timeoutsByType.agent;
    for (const [type, n] of Object.entries(stats.timeoutsByType.command)) command[type] = (command[type] ?? 0) + n;
  }
  const timeoutsOccurred = agentTimeouts + Object.values(command).reduce((sum, n) => sum + n, 0);
  const executions = items
    .flatMap((item) => item.stats.recentExecutions)
    .sort((a, b) => a.at - b.at)
    .slice(-AVERAGE_OVER);
  const recentTimeouts = items
    .flatMap((item) => item.stats.recentTimeouts.map((timeout) => ({ ...timeout, itemId: item.itemId })))
    .sort((a, b) => a.at - b.at)
    .slice(-RECENT_TIMEOUTS)
    .map((timeout) => ({ ...timeout, at: toIso(timeout.at) }));
  return {
    agentsStarted,
    agentsCompleted,
    timeoutsOccurred,
    timeoutsByType: { agent: agentTimeouts, command: mostFrequent(command) },
    timeoutRatePercent: agentsStarted === 0 ? 0 : (timeoutsOccurred / agentsStarted) * 100,
    averageExecutionSeconds: executions.length === 0 ? 0 : executions.reduce((sum, e) => sum + e.seconds, 0) / executions.length,
    recentTimeouts,
  };
}

function mostFrequent(counts: Record<string, number>): Record<string, number> {
  const ranked = Object.entries(counts).sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  if (ranked.length <= NAMED_COMMAND_TYPES) return counts;
  const named = Object.fromEntries(ranked.slice(0, NAMED_COMMAND_TYPES));
  const rest = ranked.slice(NAMED_COMMAND_TYPES).reduce((sum, [, n]) => sum + n, 0);
  return { ...named, [OTHER_COMMAND_TYPES]: (named[OTHER_COMMAND_TYPES] ?? 0) + rest };
}
