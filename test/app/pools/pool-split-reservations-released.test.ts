import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { useTestManager } from '../support/test-manager.js';
import { CrashBeforeAnswerWrite, refusal, twoEscalations } from './pool-test-support.js';

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

  it('ids named on the one row per escalation of tables written before each answer had a row of its own are still released', async () => {
    // Prepare: as an older release left a split cut off before its write
    const [first, second] = await twoEscalations(m);
    const put = (Item: Record<string, unknown>) => m.dynamo.doc.send(new PutCommand({ TableName: m.tableName, Item: { pk: 'POOL#p', ...Item } }));
    await put({ sk: `SPLITIDS#${first}`, itemIds: ['sub-old'], version: 1 });
    await put({ sk: 'SUBTASK#sub-old', owner: first });
    // Act
    await answerEscalation(m.deps, first, { option: 'skip' });
    const split = await answerEscalation(m.deps, second, { option: 'split', subtasks: [{ itemId: 'sub-old' }] });
    // Assess
    expect(split).toMatchObject({ status: 'answered', option: 'split' });
    expect((await m.deps.pools.getItem('p', 'sub-old'))?.state).toBe('available');
  });
});
