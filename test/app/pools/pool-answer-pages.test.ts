import { describe, expect, it } from 'vitest';
import { listDeadLetters } from '../../../shared/app/pools/dead-letters.js';
import { ESCALATIONS_PAGE_SIZE, listEscalations } from '../../../shared/app/pools/escalations.js';
import { InvalidRequestError } from '../../../shared/domain/errors.js';
import type { PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { T0 } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { LAMBDA_ANSWER_LIMIT, lambdaAnswerBytes, largestItem, longId } from './largest-items.js';
import { allPages } from './all-pages.js';
import { newPool } from './pool-test-support.js';

describe('pool listings are paged so every answer fits in Lambda’s 6 MB', () => {
  const m = useTestManager();

  it('GET /pools/{poolId}/dlq: items at their largest come a page at a time, each page under 6 MB, every item once', async () => {
    // Prepare: 40 dead-lettered items, every bounded field at its bound (~200 KB of escaped JSON each)
    await newPool(m.deps, {}, ['seed']);
    const ids = Array.from({ length: 40 }, (_, i) => longId('item', i));
    await m.deps.pools.createItems(ids.map((id) => largestItem('p', id, 'dlq')));
    // Act
    const pages = await allPages((cursor) => listDeadLetters(m.deps, 'p', cursor === undefined ? {} : { cursor }));
    // Assess
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(lambdaAnswerBytes(page)).toBeLessThan(LAMBDA_ANSWER_LIMIT);
    expect(pages.flatMap((page) => page.items.map((item) => item.itemId))).toEqual([...ids].sort());
  });

  it('GET /escalations and ?poolId=: every escalation once across pages, each page under 6 MB, another pool’s never mixed in', async () => {
    // Prepare: 130 answered escalations with 100 subtask ids each (the largest entry), in two pools
    const escalated = (poolId: string, n: number): PoolItem => {
      const itemId = longId('item', n);
      const escalationId = `${poolId}~${itemId}~3`;
      const answer = { option: 'split' as const, at: T0, subtasks: Array.from({ length: 100 }, (_, i) => longId('sub', i)) };
      return { ...largestItem(poolId, itemId, 'split'), escalation: { escalationId, question: 'q'.repeat(200), askedAt: T0, status: 'answered', answer } };
    };
    await newPool(m.deps, {}, ['seed']);
    await newPool(m.deps, {}, ['seed'], 'p2');
    const items = [...Array.from({ length: 100 }, (_, n) => escalated('p', n)), ...Array.from({ length: 30 }, (_, n) => escalated('p2', n))];
    await m.deps.pools.createItems(items);
    for (const item of items) {
      const escalationId = item.escalation?.escalationId ?? '';
      await m.deps.pools.putEscalationPointer({ escalationId, poolId: item.poolId, itemId: item.itemId, askedAt: T0 });
    }
    // Act
    const everything = await allPages((cursor) => listEscalations(m.deps, undefined, cursor));
    const ofP2 = await allPages((cursor) => listEscalations(m.deps, 'p2', cursor));
    // Assess
    for (const page of [...everything, ...ofP2]) expect(lambdaAnswerBytes(page)).toBeLessThan(LAMBDA_ANSWER_LIMIT);
    const ids = (pages: typeof everything) => pages.flatMap((page) => page.escalations.map((e) => e.escalationId));
    expect(ids(everything)).toEqual(items.map((item) => item.escalation?.escalationId).sort());
    expect(ids(ofP2)).toEqual(items.filter((item) => item.poolId === 'p2').map((item) => item.escalation?.escalationId).sort());
    expect(everything.length).toBeGreaterThan(2);
  });

  it('a cursor of another pool is refused with a 400 that says to start again', async () => {
    // Prepare: a cursor of p2's escalations (one more than a page)
    await newPool(m.deps, {}, ['seed']);
    await newPool(m.deps, {}, ['seed'], 'p2');
    for (let n = 0; n <= ESCALATIONS_PAGE_SIZE; n++) await m.deps.pools.putEscalationPointer({ escalationId: `p2~i-${n}~3`, poolId: 'p2', itemId: `i-${n}`, askedAt: T0 });
    const { nextCursor } = await listEscalations(m.deps, 'p2');
    // Act
    const refused = await listEscalations(m.deps, 'p', nextCursor).catch((error: unknown) => error);
    // Assess
    expect(refused).toBeInstanceOf(InvalidRequestError);
    expect(String((refused as Error).message)).toContain('start again without it');
  });

  it('an item escalated twice is listed under both questions (found by the item-size property: a 500 before)', async () => {
    // Prepare: the item's first question was answered, the second is pending
    await newPool(m.deps, {}, ['seed']);
    const item = largestItem('p', 'twice', 'escalated');
    await m.deps.pools.createItems([{ ...item, escalation: { escalationId: 'p~twice~4', question: 'again?', askedAt: T0 + 1, status: 'pending' } }]);
    await m.deps.pools.putEscalationPointer({ escalationId: 'p~twice~2', poolId: 'p', itemId: 'twice', askedAt: T0 });
    await m.deps.pools.putEscalationPointer({ escalationId: 'p~twice~4', poolId: 'p', itemId: 'twice', askedAt: T0 + 1 });
    // Act
    const { escalations } = await listEscalations(m.deps, 'p');
    // Assess
    expect(escalations.map((e) => [e.escalationId, e.status])).toEqual([
      ['p~twice~2', 'answered'],
      ['p~twice~4', 'pending'],
    ]);
  });
});
