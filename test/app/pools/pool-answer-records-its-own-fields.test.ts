import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { answerEscalation, listEscalations } from '../../../shared/app/pools/escalations.js';
import { EscalationAnsweredError } from '../../../shared/domain/pools/pool-errors.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { refusal, twoEscalations } from './pool-test-support.js';

/** The real store with one interleaving point: the next reservation of subtask ids first lets a competitor run to completion. */
class CompetitorBeforeReserve extends DynamoPoolStore {
  competitor: (() => Promise<unknown>) | undefined;

  override async reserveSubtaskIds(poolId: string, itemIds: readonly string[], owner: string): Promise<string[]> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (competitor) await competitor();
    return super.reserveSubtaskIds(poolId, itemIds, owner);
  }
}

// Audit: an answer's body may carry every option's fields (the contract's example does); the answer
// recorded them all, so a skip or increase_timeout answer listed subtasks that were never created.
describe('pools on dynalite: an answer records the fields of its own option only', () => {
  const m = useTestManager();

  it('a skip sent with subtasks does not list them in its answer', async () => {
    // Prepare
    const [first] = await twoEscalations(m);
    // Act
    await answerEscalation(m.deps, first, { option: 'skip', subtasks: [{ itemId: 'sub-a' }], timeoutSeconds: 1800 });
    // Assess
    const listed = (await listEscalations(m.deps, 'p')).escalations.find((escalation) => escalation.escalationId === first);
    expect(listed?.answer).toEqual({ option: 'skip', at: new Date(at(10)).toISOString() });
    expect(await m.deps.pools.getItem('p', 'sub-a')).toBeUndefined();
  });

  it('a split that loses to a skip sent with the same subtasks leaves their ids free for another split', async () => {
    // Prepare: the split has read the pending question; the skip (with the split's subtasks in its body) lands first
    const [first, second] = await twoEscalations(m);
    const subtasks = [{ itemId: 'sub-a' }];
    const racing = new CompetitorBeforeReserve(m.doc, m.tableName);
    racing.competitor = () => answerEscalation(m.deps, first, { option: 'skip', subtasks });
    // Act
    const lost = await refusal(answerEscalation({ ...m.deps, pools: racing }, first, { option: 'split', subtasks }));
    const split = await answerEscalation(m.deps, second, { option: 'split', subtasks });
    // Assess
    expect(lost).toBeInstanceOf(EscalationAnsweredError);
    expect(await m.deps.pools.subtaskIdsHeldBy('p', first)).toEqual([]);
    expect(split).toMatchObject({ status: 'answered', option: 'split' });
    expect((await m.deps.pools.getItem('p', 'sub-a'))?.state).toBe('available');
  });
});
