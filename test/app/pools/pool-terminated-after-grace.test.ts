import { describe, expect, it } from 'vitest';
import { getItem } from '../../../shared/app/pools/get-pool.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send } from './pool-test-support.js';

describe('pools on dynalite: a `terminated` after the grace period', () => {
  const m = useTestManager();

  /** The attempt times out at 10 s with a 5 s grace period, and is told to terminate. */
  async function terminating() {
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 5, timeout_action: 'retry' } });
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    expect(await send(m.deps, agent, { type: 'heartbeat' })).toMatchObject({ action: 'terminate' });
    return agent;
  }

  // Review finding: the runner's report after its SIGKILL was answered 200 and its partial result thrown away.
  it('is answered, and its partial result kept as a late result of its attempt', async () => {
    // Prepare
    const agent = await terminating();
    // Act
    m.clock.set(at(15.2));
    const reply = await send(m.deps, agent, { type: 'terminated', cleanup: 'failed', partialResult: { rowsDone: 41 } });
    // Assess
    expect(reply).toEqual({ state: 'available' });
    const entry = (await getItem(m.deps, 'p', 'i-1')).history.find((past) => past.attempt === agent.attempt);
    expect(entry?.resolution).toBe('force');
    expect(entry?.lateResults).toEqual([{ at: new Date(at(15.2)).toISOString(), call: 'terminated', result: { cleanup: 'failed', partialResult: { rowsDone: 41 } } }]);
  });

  it('sent again after the one that ended the attempt in time, it adds nothing', async () => {
    // Prepare
    const agent = await terminating();
    m.clock.set(at(12));
    await send(m.deps, agent, { type: 'terminated', cleanup: 'completed', partialResult: { rowsDone: 7 } });
    // Act: the SDK's retry of a call whose answer was lost
    const reply = await send(m.deps, agent, { type: 'terminated', cleanup: 'completed', partialResult: { rowsDone: 7 } });
    // Assess
    expect(reply).toEqual({ state: 'available' });
    const view = await getItem(m.deps, 'p', 'i-1');
    expect(view.partialResult).toEqual({ rowsDone: 7 });
    expect(view.history[0]?.lateResults).toBeUndefined();
  });
});
