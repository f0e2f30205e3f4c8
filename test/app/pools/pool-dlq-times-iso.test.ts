import { describe, expect, it } from 'vitest';
import { listDeadLetters } from '../../../shared/app/pools/dead-letters.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getItem } from '../../../shared/app/pools/get-pool.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send } from './pool-test-support.js';

describe('pools on dynalite: the DLQ answers times as ISO-8601, as every other answer does', () => {
  const m = useTestManager();

  it("a dead-lettered item's last checkpoint has its time as ISO-8601, the same as the item's own view", async () => {
    // Prepare: a checkpoint at 3 s, then the agent times out at 10 s and the item is dead-lettered
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } });
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(3));
    await send(m.deps, agent, { type: 'checkpoint', state: { step: 2 }, progress: 0.2 });
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: agent.attempt, dueAt: at(10) });
    // Act
    const page = await listDeadLetters(m.deps, 'p', {});
    const view = await getItem(m.deps, 'p', 'i-1');
    // Assess
    expect(page.items[0]?.lastCheckpoint).toEqual({ state: { step: 2 }, progress: 0.2, at: new Date(at(3)).toISOString(), attempt: 1 });
    expect(page.items[0]?.lastCheckpoint).toEqual(view.lastCheckpoint);
  });
});
