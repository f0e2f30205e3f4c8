import { describe, expect, it } from 'vitest';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { dynaliteItemSize } from '../../support/dynalite-item-size.js';
import { useTestManager } from '../support/test-manager.js';
import { CrashBeforeAnswerWrite, refusal, reservationRows, twoEscalations } from './pool-test-support.js';

/** 128-character subtask ids (the longest an id may be), distinct per answer and position. */
const freshIds = (answer: number, count = 100) => Array.from({ length: count }, (_, i) => `sub-${answer}-${i}-`.padEnd(128, 'x'));
const asSubtasks = (itemIds: readonly string[]) => itemIds.map((itemId) => ({ itemId }));

const CUT_OFF_ANSWERS = 40;
/** A row naming one answer's 100 ids of 128 characters, its key and a little more. */
const ONE_ANSWERS_ROW_BYTES = 14 * 1024;

// A split answer names its subtask ids on its escalation's reservation row before it reserves them. One
// cut off between those reservations and the answer's write (a Lambda timeout), answered again with
// other ids, added 100 more ids (~13 KB) each time: past ~30 such repeats the row passed DynamoDB's
// 400 KB, and from then on every split of that escalation into ids it had not named before failed with
// a 500 (ValidationException: item size), whatever ids the operator chose.
describe('pools on dynalite: split answers cut off before their write, repeated with other ids', () => {
  const m = useTestManager();

  it(`${CUT_OFF_ANSWERS} splits of 100 fresh 128-character ids cut off before their write: each row stays one answer's size, a split then lands and frees every id they reserved`, { timeout: 180_000 }, async () => {
    // Prepare
    const [first, second] = await twoEscalations(m);
    const cutOff = { ...m.deps, pools: new CrashBeforeAnswerWrite(m.doc, m.tableName) };
    // Act: the first escalation's splits, each cut off before its write and sent again with other ids
    const failures: unknown[] = [];
    for (let answer = 0; answer < CUT_OFF_ANSWERS; answer++) {
      failures.push(await refusal(answerEscalation(cutOff, first, { option: 'split', subtasks: asSubtasks(freshIds(answer)) })));
    }
    const repeated = await refusal(answerEscalation(cutOff, first, { option: 'split', subtasks: asSubtasks(freshIds(0).reverse()) }));
    const rowsAfterCutOffs = await reservationRows(m, first);
    const landed = await answerEscalation(m.deps, first, { option: 'split', subtasks: asSubtasks(freshIds(CUT_OFF_ANSWERS)) });
    // …and the second escalation split into ids the first one's cut-off answers had reserved
    const freed = await answerEscalation(m.deps, second, { option: 'split', subtasks: asSubtasks(freshIds(CUT_OFF_ANSWERS - 1)) });
    // Assess
    for (const failure of [...failures, repeated]) expect(failure).toMatchObject({ message: 'cut off before the answer was written' });
    expect(rowsAfterCutOffs).toHaveLength(CUT_OFF_ANSWERS); // the repeat in another order added no row
    for (const row of rowsAfterCutOffs) expect(dynaliteItemSize(row)).toBeLessThan(ONE_ANSWERS_ROW_BYTES);
    expect(landed).toMatchObject({ status: 'answered', option: 'split' });
    expect((await m.deps.pools.subtaskIdsHeldBy('p', first)).sort()).toEqual(freshIds(CUT_OFF_ANSWERS).sort());
    expect(freed).toMatchObject({ status: 'answered', option: 'split' });
    expect((await m.deps.pools.getItem('p', freshIds(CUT_OFF_ANSWERS)[0] ?? ''))?.state).toBe('available');
    expect((await m.deps.pools.getItem('p', freshIds(CUT_OFF_ANSWERS - 1)[99] ?? ''))?.state).toBe('available');
  });
});
