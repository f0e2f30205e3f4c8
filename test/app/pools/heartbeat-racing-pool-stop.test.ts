import { describe, expect, it } from 'vitest';
import { decidePool } from '../../../shared/app/pools/pool-state-stores.js';
import { cancelPool as decideCancel } from '../../../shared/domain/pools/pool-decisions.js';
import type { HeartbeatReply } from '../../../shared/domain/pools/agent-calls.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, send, withInterleaving } from './pool-test-support.js';

// An agent's heartbeat reads the pool RUNNING and writes its item (a checkpoint request fell due);
// before the write lands the pool is cancelled, and the cancel's wake pass has not reached this item
// yet (a later chunk of a large pool, or a cancel cut off after its pool write). The heartbeat used to
// answer `checkpoint`: the agent, told to carry on after the cancel, heard `terminate` only at its
// next beat. Contract: once the pool is cancelled every running agent is told to terminate.
describe('a heartbeat whose item write lands after its pool stopped (dynalite)', () => {
  const m = useTestManager();

  it('is answered terminate, with the grace period of the stop, and the item is terminating', async () => {
    // Prepare: a running attempt whose first checkpoint request is due at 60 s
    await newPool(m.deps, { agent_timeout_secs: 600, checkpoint_interval_secs: 60, timeout_config: { cleanup_grace_period_secs: 30 } });
    const agent = await claim(m.deps, 'agent-a');
    const { deps, store } = withInterleaving(m);
    m.clock.set(at(61));
    store.beforeNextSave(() => decidePool(m.deps, 'p', (pool) => decideCancel(pool, 'operator', at(61))));
    // Act
    const reply = (await send(deps, agent, { type: 'heartbeat' })) as HeartbeatReply;
    // Assess: the answer a heartbeat after the cancel gets
    expect((await m.deps.pools.getPool('p'))?.status).toBe('CANCELLED');
    expect(reply).toMatchObject({ action: 'terminate', terminateBy: new Date(at(91)).toISOString() });
    const item = await m.deps.pools.getItem('p', 'i-1');
    expect(item?.run?.terminating).toMatchObject({ reason: { kind: 'pool_stopped' }, terminateBy: at(91) });
  });

  it('a heartbeat that writes nothing is answered as the pool read (no second read of the pool)', async () => {
    // Prepare
    await newPool(m.deps, { agent_timeout_secs: 600, checkpoint_interval_secs: 60 });
    const agent = await claim(m.deps, 'agent-a');
    m.clock.set(at(10));
    const reads = m.calls.length;
    // Act
    const reply = (await send(m.deps, agent, { type: 'heartbeat' })) as HeartbeatReply;
    // Assess
    expect(reply.action).toBe('continue');
    const poolReads = m.calls.slice(reads).filter((call) => call.command === 'GetCommand' && call.input.Key?.sk === 'POOL');
    expect(poolReads).toHaveLength(1);
  });
});
