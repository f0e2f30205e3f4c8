import { describe, expect, it } from 'vitest';
import { AgentCompleted } from '../../../shared/events/pools/agent-completed.js';
import type { BusEvent } from '../../../shared/ports/event-bus.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send } from './pool-test-support.js';

/**
 * An observer that follows attempts through the bus alone (a dashboard of running agents, seed 003's
 * TimeoutEnforcer `active_timeouts` map): an attempt opens with AgentStarted and closes with the
 * event that ends it (AgentCompleted, or TimeoutResolved after a timeout, stall or stop).
 */
function attemptsStillOpen(events: readonly BusEvent[]): string[] {
  const open = new Set<string>();
  const key = (e: BusEvent) => `${String(e.detail['poolId'])}/${String(e.detail['itemId'])}#${String(e.detail['attempt'])}`;
  for (const event of events) {
    if (event.detailType === 'AgentStarted') open.add(key(event));
    if (event.detailType === 'AgentCompleted' || event.detailType === 'TimeoutResolved') open.delete(key(event));
  }
  return [...open].sort();
}

describe('an attempt the agent gives back unasked ends on the bus with AgentCompleted cancelled (dynalite)', () => {
  const m = useTestManager();

  it('a give-back publishes AgentCompleted (outcome cancelled, the item back available); an observer of events sees no agent still running', async () => {
    // Prepare: one item, a generous deadline
    await newPool(m.deps, { agent_timeout_secs: 600 }, ['i-1']);
    const first = await claim(m.deps, 'agent-a');
    // Act: the runner is stopped with Ctrl-C and reports terminated on its own; another agent completes the item
    m.clock.set(at(5));
    await send(m.deps, first, { type: 'terminated', cleanup: 'completed', partialResult: { done: 1 } });
    m.clock.set(at(6));
    const second = await claim(m.deps, 'agent-b');
    await send(m.deps, second, { type: 'complete', outcome: 'succeeded' });
    // Assess
    const ends = m.bus.ofType('AgentCompleted').map((event) => AgentCompleted.parse(event.detail));
    expect((await m.deps.pools.getItem('p', 'i-1'))?.history.map((h) => h.outcome)).toEqual(['cancelled', 'succeeded']);
    expect(ends).toEqual([
      expect.objectContaining({ attempt: 1, agentId: 'agent-a', outcome: 'cancelled', durationSeconds: 5, cleanup: 'completed', itemState: 'available', version: 2 }),
      expect.objectContaining({ attempt: 2, outcome: 'succeeded', version: 2 }),
    ]);
    expect(attemptsStillOpen(m.bus.published)).toEqual([]);
  });

  it('a give-back that escalates the item (the timeout_escalation-th) ends its attempt before the question is asked', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 600, timeout_escalation: 2 }, ['i-1']);
    // Act: two agents in turn give the item back
    for (const [n, agent] of ['agent-a', 'agent-b'].entries()) {
      m.clock.set(at(10 * (n + 1)));
      const claimed = await claim(m.deps, agent);
      await send(m.deps, claimed, { type: 'terminated', cleanup: 'failed' });
    }
    // Assess
    const order = m.bus.published.map((event) => event.detailType).filter((type) => type === 'AgentCompleted' || type === 'TaskEscalated');
    expect((await m.deps.pools.getItem('p', 'i-1'))?.state).toBe('escalated');
    expect(order).toEqual(['AgentCompleted', 'AgentCompleted', 'TaskEscalated']);
    expect(m.bus.ofType('AgentCompleted').map((event) => event.detail['itemState'])).toEqual(['available', 'escalated']);
    expect(attemptsStillOpen(m.bus.published)).toEqual([]);
  });

  it('a give-back is not a completion in the metrics: no AgentCompleted metric, no execution sample', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 600 }, ['i-1']);
    const agent = await claim(m.deps, 'agent-a');
    // Act
    m.clock.set(at(5));
    await send(m.deps, agent, { type: 'terminated', cleanup: 'completed' });
    // Assess
    const stats = (await m.deps.pools.getItem('p', 'i-1'))?.stats;
    expect(stats).toMatchObject({ agentsCompleted: 0, recentExecutions: [] });
    expect(m.telemetry.count('AgentCompleted')).toBe(0);
    expect(m.telemetry.count('AgentStarted')).toBe(1);
  });
});
