import { describe, expect, it } from 'vitest';
import { summarize } from '../../../../shared/app/pools/pool-metrics.js';
import { claimItem } from '../../../../shared/domain/pools/claim-item.js';
import type { Effect } from '../../../../shared/domain/effects.js';
import { at, call, claimed, eventTypes, freshItem, poolWith, wake } from './pool-fixtures.js';

describe('pool metrics (seed 003 §3)', () => {
  it('counts started agents, completions and timeouts; averages only completed agents, as the seed samples on completion', () => {
    // Prepare: a 100 s agent limit, no grace period
    const pool = poolWith({ agent_timeout_secs: 100, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 0 } });
    // Act: one agent completes after 20 s, one fails after 40 s, one times out at 100 s, one gives its item back after 5 s
    const succeeded = call(claimed(pool, freshItem('i-1')), pool, 20, { type: 'complete', outcome: 'succeeded' }).state;
    const failed = call(claimed(pool, freshItem('i-2')), pool, 40, { type: 'complete', outcome: 'failed' }).state;
    const timedOut = wake(claimed(pool, freshItem('i-3')), pool, 100).state;
    const givenBack = call(claimed(pool, freshItem('i-4')), pool, 5, { type: 'terminated', cleanup: 'completed' }).state;
    const metrics = summarize([succeeded, failed, timedOut, givenBack]);
    // Assess
    expect([timedOut.state, givenBack.state]).toEqual(['available', 'available']);
    expect(metrics).toMatchObject({ agentsStarted: 4, agentsCompleted: 2, timeoutsOccurred: 1, timeoutsByType: { agent: 1, command: {} }, timeoutRatePercent: 25 });
    expect(metrics.averageExecutionSeconds).toBe(30);
    expect(metrics.recentTimeouts).toEqual([expect.objectContaining({ itemId: 'i-3', type: 'agent', limitSeconds: 100 })]);
  });
});

describe('enable_monitoring (seed 003 TimeoutConfig)', () => {
  const metricNames = (effects: readonly Effect[]) => effects.flatMap((effect) => (effect.type === 'Metric' ? [effect.name] : []));
  const lifeOfAnItem = (enableMonitoring: boolean) => {
    const pool = poolWith({ agent_timeout_secs: 100, timeout_config: { timeout_action: 'dlq', cleanup_grace_period_secs: 0, enable_monitoring: enableMonitoring } });
    const claim = claimItem(freshItem(), pool, { agentId: 'a', kind: 'agent' }, at(0));
    const timeout = wake(claim.state, pool, 100);
    return { effects: [...claim.effects, ...timeout.effects], item: timeout.state };
  };

  it('false: the pool emits no timeout metrics, yet keeps its events and the counters behind GET …/metrics', () => {
    // Act
    const off = lifeOfAnItem(false);
    const on = lifeOfAnItem(true);
    // Assess
    expect(metricNames(on.effects)).toEqual(expect.arrayContaining(['AgentStarted', 'AgentTimedOut', 'ItemDeadLettered']));
    expect(metricNames(off.effects)).toEqual([]);
    expect(eventTypes(off.effects)).toEqual(eventTypes(on.effects));
    expect(off.item).toEqual(on.item);
    expect(summarize([off.item])).toMatchObject({ agentsStarted: 1, timeoutsOccurred: 1 });
  });
});
