import { describe, expect, it } from 'vitest';
import { answerEscalation } from '../../../../shared/domain/pools/item-answers.js';
import { ClarifiedInputTooLargeError } from '../../../../shared/domain/pools/pool-errors.js';
import { ITEM_BOUNDS, type PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import { at, freshItem, poolWith } from './pool-fixtures.js';

const pool = poolWith();
const escalated = (item: PoolItem, n: number): PoolItem => ({
  ...item,
  state: 'escalated',
  escalation: { escalationId: `p~i-1~${n}`, question: 'q', askedAt: at(n), status: 'pending' },
});
const clarify = (item: PoolItem, n: number, clarification: string) =>
  answerEscalation(escalated(item, n), `p~i-1~${n}`, { option: 'clarify', clarification }, pool.config, at(n + 1)).state;

describe('clarify adds the text to the item’s input and loses nothing it held', () => {
  it('a second clarification is appended to the first', () => {
    const twice = clarify(clarify(freshItem('i-1', { task: 'migrate' }), 3, 'use the v2 API'), 4, 'and skip the flaky tests');
    expect(twice.input).toEqual({ task: 'migrate', clarification: 'use the v2 API\n\nand skip the flaky tests' });
  });

  it('an input’s own clarification text is kept ahead of the human’s', () => {
    expect(clarify(freshItem('i-1', { task: 'migrate', clarification: 'user data' }), 3, 'use the v2 API').input).toEqual({
      task: 'migrate',
      clarification: 'user data\n\nuse the v2 API',
    });
  });

  it('an input that is not an object, or whose own clarification is not text, is kept whole beside the text', () => {
    expect(clarify(freshItem('i-1', ['a', 'b']), 3, 'only a').input).toEqual({ input: ['a', 'b'], clarification: 'only a' });
    const own = { task: 'x', clarification: { by: 'user' } };
    expect(clarify(freshItem('i-1', own), 3, 'only a').input).toEqual({ input: own, clarification: 'only a' });
  });

  it('an answer that would grow the input past its bound is refused, and the item is as it was', () => {
    // Prepare: an input at the payload bound, already clarified up to the bound's last few KB
    let item = freshItem('i-1', { blob: 'x'.repeat(ITEM_BOUNDS.payloadBytes - 20) });
    item = clarify(item, 3, 'c'.repeat(4_096));
    const before = structuredClone(item);
    // Act + Assess
    expect(() => clarify(item, 5, 'd'.repeat(4_096))).toThrow(ClarifiedInputTooLargeError);
    expect(() => clarify(item, 5, 'd'.repeat(4_096))).toThrow(/send a shorter clarification, or answer split or skip/);
    expect(item).toEqual(before);
  });
});
