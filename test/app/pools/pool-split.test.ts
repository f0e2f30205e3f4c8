import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import { itemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { claim, newPool, refusal, send } from './pool-test-support.js';

/** The store as a crashed invocation left it: the split's subtasks were never created. */
class CrashBeforeSubtasks extends DynamoPoolStore {
  override async createItems(_items: readonly PoolItem[]): Promise<void> {
    throw new Error('crashed before the subtasks were written');
  }
}

describe('pools on dynalite: a split answer', () => {
  const m = useTestManager();

  // Found by the simulator (seed 21 with --pools 1): the split was written first and its subtasks
  // created after; a crash in between let GET /pools complete the pool, and the subtasks, created
  // by the retry, sat `available` in a COMPLETED pool that no agent may claim from.
  it('a crash between the answer and its subtasks never completes the pool without them', async () => {
    // Prepare: i-2 succeeds; i-1 times out once and is escalated (timeout_escalation 1, no grace)
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1', 'i-2']);
    const first = await claim(m.deps, 'agent-a');
    const second = await claim(m.deps, 'agent-b');
    const [slow, quick] = first.itemId === 'i-1' ? [first, second] : [second, first];
    await send(m.deps, quick, { type: 'complete', outcome: 'succeeded' });
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'i-1'), fenceToken: slow.attempt, dueAt: at(10) });
    const escalationId = (await m.deps.pools.getItem('p', 'i-1'))?.escalation?.escalationId ?? '';
    const split = { option: 'split' as const, subtasks: [{ itemId: 'i-1.a' }, { itemId: 'i-1.b' }] };
    // Act: the answer's invocation dies before the subtasks exist; a client reads the pool; the answer is sent again
    await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeSubtasks(m.doc, m.tableName) }, escalationId, split));
    const meanwhile = await getPool(m.deps, 'p');
    await answerEscalation(m.deps, escalationId, split).catch(() => undefined);
    // Assess: the pool kept running, and an agent can claim the subtasks
    expect(meanwhile.status).toBe('RUNNING');
    expect((await getPool(m.deps, 'p')).status).toBe('RUNNING');
    const claimed = [await claim(m.deps, 'agent-c'), await claim(m.deps, 'agent-d')].map((c) => c.itemId).sort();
    expect(claimed).toEqual(['i-1.a', 'i-1.b']);
  });
});
