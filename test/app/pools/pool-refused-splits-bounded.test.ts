import { describe, expect, it } from 'vitest';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { useTestManager } from '../support/test-manager.js';
import { CrashBeforeAnswerWrite, refusal, reservationRows, twoEscalations } from './pool-test-support.js';

/** 128-character subtask ids, distinct per answer and position. */
const freshIds = (answer: number, count: number) => Array.from({ length: count }, (_, i) => `sub-${answer}-${i}-`.padEnd(128, 'x'));

const REFUSED_ANSWERS = 35;

// A split answer names its subtask ids on its escalation's reservation row before it reserves them.
// One refused because another split holds one of its ids (409 item_exists) kept every id it named on
// that row: an operator's tool retrying with fresh ids grew the row by ~13 KB per refusal until, past
// DynamoDB's 400 KB, the escalation's every split answer failed with a 500.
describe('pools on dynalite: refused split answers leave nothing behind', () => {
  const m = useTestManager();

  it(`${REFUSED_ANSWERS} split answers refused for an id another split holds, each naming 99 fresh 128-character ids: each a 409 that writes nothing, and a split then lands`, { timeout: 120_000 }, async () => {
    // Prepare: the first escalation's split cut off before its write, so it holds 'sub-held'
    const [first, second] = await twoEscalations(m);
    await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeAnswerWrite(m.doc, m.tableName) }, first, { option: 'split', subtasks: [{ itemId: 'sub-held' }] }));
    // Act: the second escalation answered again and again with 'sub-held' and 99 fresh ids
    const refusals: unknown[] = [];
    for (let answer = 0; answer < REFUSED_ANSWERS; answer++) {
      const subtasks = [{ itemId: 'sub-held' }, ...freshIds(answer, 99).map((itemId) => ({ itemId }))];
      refusals.push(await refusal(answerEscalation(m.deps, second, { option: 'split', subtasks })));
    }
    const rows = await reservationRows(m, second);
    const landed = await answerEscalation(m.deps, second, { option: 'split', subtasks: freshIds(REFUSED_ANSWERS, 100).map((itemId) => ({ itemId })) });
    // Assess
    for (const refused of refusals) expect(refused).toMatchObject({ code: 'item_exists', message: expect.stringContaining("'sub-held'") });
    expect(rows).toEqual([]);
    expect(landed).toMatchObject({ status: 'answered', option: 'split' });
    expect((await m.deps.pools.getItem('p', freshIds(REFUSED_ANSWERS, 1)[0] ?? ''))?.state).toBe('available');
    expect(await m.deps.pools.subtaskIdsHeldBy('p', first)).toEqual(['sub-held']);
  });
});
