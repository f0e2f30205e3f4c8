import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager, type TestManager } from '../support/test-manager.js';
import { claim, newPool, refusal } from './pool-test-support.js';

/** The store as an invocation cut off between its reservations and the answer's write left it. */
class CrashBeforeAnswerWrite extends DynamoPoolStore {
  override async saveItem(_item: PoolItem, _expectedVersion: number): Promise<PoolItem> {
    throw new Error('cut off before the answer was written');
  }
}

/** Two items escalated after one timeout each; answers their escalation ids. */
async function twoEscalations(m: TestManager): Promise<[string, string]> {
  await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1', 'i-2']);
  const held = [await claim(m.deps, 'agent-a'), await claim(m.deps, 'agent-b')];
  m.clock.set(at(10));
  for (const claimed of held) await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', claimed.itemId), fenceToken: claimed.attempt, dueAt: at(10) });
  const escalationOf = async (itemId: string) => (await m.deps.pools.getItem('p', itemId))?.escalation?.escalationId ?? '';
  return [await escalationOf('i-1'), await escalationOf('i-2')];
}

// Noticed last session: a split answer reserves its subtask ids before its write; cut off (or failed)
// in between and then answered differently, the escalation kept those ids for good, and no other split
// in the pool could ever name them. Once an answer is decided, only its own split keeps any.
describe('pools on dynalite: subtask ids of a split that never landed', () => {
  const m = useTestManager();

  it('a split cut off before its write, then the escalation answered skip: another split may take those ids', async () => {
    // Prepare
    const [first, second] = await twoEscalations(m);
    const subtasks = [{ itemId: 'sub-a' }, { itemId: 'sub-b' }];
    const cutOff = await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeAnswerWrite(m.doc, m.tableName) }, first, { option: 'split', subtasks }));
    expect(cutOff).toMatchObject({ message: 'cut off before the answer was written' });
    expect((await m.deps.pools.subtaskIdsHeldBy('p', first)).sort()).toEqual(['sub-a', 'sub-b']);
    // Act: the operator answers the first escalation otherwise, then splits the second into those ids
    await answerEscalation(m.deps, first, { option: 'skip' });
    const split = await answerEscalation(m.deps, second, { option: 'split', subtasks });
    // Assess
    expect(await m.deps.pools.subtaskIdsHeldBy('p', first)).toEqual([]);
    expect(split).toMatchObject({ status: 'answered', option: 'split' });
    expect((await m.deps.pools.getItem('p', 'sub-a'))?.state).toBe('available');
  });

  it('a split repeated after being cut off keeps its ids and creates its subtasks', async () => {
    const [first] = await twoEscalations(m);
    const subtasks = [{ itemId: 'sub-a' }];
    await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeAnswerWrite(m.doc, m.tableName) }, first, { option: 'split', subtasks }));
    await answerEscalation(m.deps, first, { option: 'split', subtasks });
    expect(await m.deps.pools.subtaskIdsHeldBy('p', first)).toEqual(['sub-a']);
    expect((await m.deps.pools.getItem('p', 'sub-a'))?.state).toBe('available');
  });
});
