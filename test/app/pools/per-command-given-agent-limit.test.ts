import { describe, expect, it } from 'vitest';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { toIso } from '../../../shared/domain/time.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send } from './pool-test-support.js';

// Seed 003's TimeoutEnforcer::register_agent_timeout schedules the agent timeout under every policy;
// per_command only adds each command's own check. So a limit the pool gives applies under per_command
// too; only the default limit does not (pool-config.ts, agentLimitSeconds).
describe('under per_command a given agent limit bounds the attempt; the default does not (dlq, dynalite)', () => {
  const m = useTestManager();

  it('agent_timeout_secs 600: an agent that starts no command but answers every checkpoint is timed out at 600 s, dead-lettered, and the pool completes', async () => {
    // Prepare: one command (shell, 60 s), an explicit agent limit, checkpoints every 300 s
    await newPool(
      m.deps,
      {
        agent_timeout_secs: 600,
        agent_template: [{ shell: 'work ${item.id}' }],
        checkpoint_interval_secs: 300,
        checkpoint_timeout_secs: 30,
        timeout_config: { timeout_policy: 'per_command', cleanup_grace_period_secs: 0 },
      },
      ['i-1'],
    );
    const agent = await claim(m.deps, 'agent-a');
    // Act: at each checkpoint window the agent heartbeats, hears `checkpoint`, and sends the same state again
    const actions: string[] = [];
    for (let t = 300; t <= 7 * 24 * 3_600; t += 300) {
      m.clock.set(at(t + 1));
      const reply = (await send(m.deps, agent, { type: 'heartbeat' })) as { action: string };
      actions.push(reply.action);
      if (reply.action === 'terminate') break;
      await send(m.deps, agent, { type: 'checkpoint', state: { step: 'thinking' } });
    }
    // Assess: answering checkpoints did not keep the item: the 600 s limit ended the attempt
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(actions).toEqual(['checkpoint', 'terminate']);
    expect(item?.state).toBe('dlq');
    expect(item?.history[0]?.timeout).toMatchObject({ type: 'agent', limitSeconds: 600, elapsedSeconds: 600 });
    expect((await getPool(m.deps, 'p')).status).toBe('COMPLETED');
  });

  it('the claim answers the given limit as deadlineAt; without agent_timeout_secs it answers null (no default agent deadline)', async () => {
    // Prepare
    const perCommand = { agent_template: [{ shell: 'a' }], timeout_config: { timeout_policy: 'per_command' as const } };
    await newPool(m.deps, { ...perCommand, agent_timeout_secs: 600 }, ['i-1'], 'given');
    await newPool(m.deps, perCommand, ['i-1'], 'default');
    // Act
    const given = await claimPoolItem(m.deps, 'given', { agentId: 'a', kind: 'agent' });
    const byDefault = await claimPoolItem(m.deps, 'default', { agentId: 'a', kind: 'agent' });
    // Assess
    expect(given?.deadlineAt).toBe(toIso(at(600)));
    expect(byDefault?.deadlineAt).toBeNull();
  });

  it('an expert under per_command is bounded by a given delegation_timeout_secs, or a given agent_timeout_secs, and not by the 600 s default', async () => {
    // Prepare
    const perCommand = { timeout_config: { timeout_policy: 'per_command' as const } };
    await newPool(m.deps, { ...perCommand, delegation_timeout_secs: 1_200 }, ['i-1'], 'given');
    await newPool(m.deps, { ...perCommand, agent_timeout_secs: 300 }, ['i-1'], 'agents-only');
    // Act
    const given = await claimPoolItem(m.deps, 'given', { agentId: 'x', kind: 'expert' });
    const agentsOnly = await claimPoolItem(m.deps, 'agents-only', { agentId: 'x', kind: 'expert' });
    // Assess: the delegation limit applies under every policy, and an expert never gets longer than an agent (seed 002)
    expect(given?.deadlineAt).toBe(toIso(at(1_200)));
    expect(agentsOnly?.deadlineAt).toBe(toIso(at(300)));
  });
});
