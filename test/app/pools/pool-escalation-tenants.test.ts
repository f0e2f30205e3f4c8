import { describe, expect, it } from 'vitest';
import { listEscalations } from '../../../shared/app/pools/escalations.js';
import { runFollowUps } from '../../../shared/app/pools/follow-ups.js';
import { newPoolItem, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { DEFAULT_TENANT } from '../../../shared/domain/tenant.js';
import { T0 } from '../../support/fixtures.js';
import { T_ROLE as T, U_USER as U } from '../support/tenants.js';
import { useTestManager } from '../support/test-manager.js';
import { allPages } from './all-pages.js';
import { newPool } from './pool-test-support.js';

const escalated = (poolId: string, itemId: string): PoolItem => ({
  ...newPoolItem(poolId, itemId, null),
  state: 'escalated',
  escalation: { escalationId: `${poolId}~${itemId}~1`, question: 'q', askedAt: T0, status: 'pending' },
});

/** Every page of `GET /escalations` for a tenant. */
const everyPage = (deps: Parameters<typeof listEscalations>[0], tenant: string) => allPages((cursor) => listEscalations(deps, undefined, cursor, tenant));

describe("GET /escalations across pools: each tenant's escalations, every one once (dynalite)", () => {
  const m = useTestManager();

  it("an escalation's pointer records its pool's tenant when the follow-up indexes it", async () => {
    // Prepare
    await newPool(m.deps, {}, ['seed'], 'pt', T);
    const pool = await m.deps.pools.getPool('pt');
    if (!pool) throw new Error('newPool wrote the pool');
    const item: PoolItem = { ...escalated('pt', 'x'), pending: [{ type: 'index_escalation', escalationId: 'pt~x~1' }] };
    await m.deps.pools.createItems([item]);
    // Act
    await runFollowUps(m.deps, item, pool);
    // Assess
    const pointer = (await m.snapshot()).find((stored) => stored['pk'] === 'ESCALATIONS');
    expect(pointer).toMatchObject({ escalationId: 'pt~x~1', tenant: T });
    expect((await listEscalations(m.deps, undefined, undefined, T)).escalations.map((e) => e.escalationId)).toEqual(['pt~x~1']);
    expect((await listEscalations(m.deps, undefined, undefined, U)).escalations).toEqual([]);
  });

  it('interleaved and sparse among other tenants: paging loses and repeats none, and shows no other tenant\'s', async () => {
    // Prepare: 130 pointers of T, U and the default tenant interleaved, then 400 of U, then 3 more of T
    const owners: Array<[string, string]> = [
      ...Array.from({ length: 130 }, (_, n): [string, string] => [`a${String(n).padStart(3, '0')}`, [T, U, DEFAULT_TENANT][n % 3] as string]),
      ...Array.from({ length: 400 }, (_, n): [string, string] => [`b${String(n).padStart(3, '0')}`, U]),
      ...Array.from({ length: 3 }, (_, n): [string, string] => [`c${n}`, T]),
    ];
    await m.deps.pools.createItems(owners.map(([itemId]) => escalated('p', itemId)));
    for (const [itemId, tenant] of owners) {
      await m.deps.pools.putEscalationPointer({ escalationId: `p~${itemId}~1`, poolId: 'p', ...(tenant === DEFAULT_TENANT ? {} : { tenant }), itemId, askedAt: T0 });
    }
    const expected = (tenant: string) => owners.filter(([, owner]) => owner === tenant).map(([itemId]) => `p~${itemId}~1`);
    // Act
    const [ofT, ofU, ofDefault] = await Promise.all([everyPage(m.deps, T), everyPage(m.deps, U), everyPage(m.deps, DEFAULT_TENANT)]);
    // Assess
    const ids = (pages: typeof ofT) => pages.flatMap((page) => page.escalations.map((e) => e.escalationId));
    expect(ids(ofT)).toEqual(expected(T));
    expect(ids(ofU)).toEqual(expected(U));
    expect(ids(ofDefault)).toEqual(expected(DEFAULT_TENANT));
    for (const page of [...ofT, ...ofU]) expect(page.escalations.length).toBeLessThanOrEqual(50);
  });
});
