import { beforeEach, describe, expect, it } from 'vitest';
import { handler as answerEscalation } from '../../../functions/pools/answer-escalation.js';
import { handler as cancelPool } from '../../../functions/pools/cancel-pool.js';
import { handler as claimItem } from '../../../functions/pools/claim-item.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as getCollection } from '../../../functions/pools/get-collection.js';
import { handler as getItem } from '../../../functions/pools/get-item.js';
import { handler as getMetrics } from '../../../functions/pools/get-metrics.js';
import { handler as getPool } from '../../../functions/pools/get-pool.js';
import { handler as listDlq } from '../../../functions/pools/list-dlq.js';
import { handler as listEscalations } from '../../../functions/pools/list-escalations.js';
import { handler as retryDlqItem } from '../../../functions/pools/retry-dlq-item.js';
import { handler as startCollection } from '../../../functions/pools/start-collection.js';
import { EscalationNotFoundError, PoolNotFoundError } from '../../../shared/domain/pools/pool-errors.js';
import { newPoolItem } from '../../../shared/domain/pools/pool-item.js';
import { T0 } from '../../support/fixtures.js';
import { invoke } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';
import { asT, asU, T_ROLE, T_SESSION_1, T_SESSION_2, U_USER, type Caller } from '../support/tenants.js';

const pool = { poolId: 'p', items: [{ itemId: 'i-1' }, { itemId: 'i-2' }], config: {} };
const ESCALATION = 'p~asked~1';
const pathOf = (extra: Record<string, string> = {}) => ({ pathParameters: { poolId: 'p', ...extra } });

/** Every client route that names a pool, as the given caller. */
const routes = {
  'GET /pools/{poolId}': (c: Caller) => invoke(getPool, { method: 'GET', route: '/pools/{poolId}', ...pathOf(), ...c }),
  'GET /pools/{poolId}/items/{itemId}': (c: Caller) => invoke(getItem, { method: 'GET', route: '/pools/{poolId}/items/{itemId}', ...pathOf({ itemId: 'i-1' }), ...c }),
  'GET /pools/{poolId}/metrics': (c: Caller) => invoke(getMetrics, { method: 'GET', route: '/pools/{poolId}/metrics', ...pathOf(), ...c }),
  'GET /pools/{poolId}/dlq': (c: Caller) => invoke(listDlq, { method: 'GET', route: '/pools/{poolId}/dlq', ...pathOf(), ...c }),
  'POST /pools/{poolId}/claims': (c: Caller) => invoke(claimItem, { method: 'POST', route: '/pools/{poolId}/claims', ...pathOf(), body: { agentId: 'agent-1' }, ...c }),
  'POST /pools/{poolId}/cancel': (c: Caller) => invoke(cancelPool, { method: 'POST', route: '/pools/{poolId}/cancel', ...pathOf(), body: { reason: 'not yours' }, ...c }),
  'POST /pools/{poolId}/dlq/{itemId}/retry': (c: Caller) =>
    invoke(retryDlqItem, { method: 'POST', route: '/pools/{poolId}/dlq/{itemId}/retry', ...pathOf({ itemId: 'dead' }), body: {}, ...c }),
  'POST /pools/{poolId}/checkpoints/collect': (c: Caller) => invoke(startCollection, { method: 'POST', route: '/pools/{poolId}/checkpoints/collect', ...pathOf(), ...c }),
  'GET /pools/{poolId}/checkpoints/collect/{collectionId}': (c: Caller) =>
    invoke(getCollection, { method: 'GET', route: '/pools/{poolId}/checkpoints/collect/{collectionId}', ...pathOf({ collectionId: 'c-1' }), ...c }),
  'GET /escalations?poolId=': (c: Caller) => invoke(listEscalations, { method: 'GET', route: '/escalations', query: { poolId: 'p' }, ...c }),
  'POST /escalations/{escalationId}/answer': (c: Caller) =>
    invoke(answerEscalation, { method: 'POST', route: '/escalations/{escalationId}/answer', pathParameters: { escalationId: ESCALATION }, body: { option: 'skip' }, ...c }),
};
type RouteName = keyof typeof routes;

/** What a missing pool (or escalation) answers: another tenant's must answer exactly this. */
const notFound = (route: RouteName) =>
  route.startsWith('POST /escalations')
    ? { statusCode: 404, body: { error: { code: 'escalation_not_found', message: new EscalationNotFoundError(ESCALATION).message } } }
    : { statusCode: 404, body: { error: { code: 'pool_not_found', message: new PoolNotFoundError('p').message } } };

const listedEscalations = async (c: Caller) =>
  ((await invoke(listEscalations, { method: 'GET', route: '/escalations', ...c })).body['escalations'] as Array<{ escalationId: string }>).map((e) => e.escalationId);

describe("HTTP: a client reads and acts only on its own tenant's pools (dynalite)", () => {
  const m = useHttpTestManager();
  beforeEach(async () => {
    const created = await invoke(createPool, { method: 'POST', route: '/pools', body: pool, iamUserArn: T_SESSION_1 });
    expect(created.statusCode).toBe(201);
    // A dead letter, a pending escalation (with its pointer) and a collection, so every route has something to touch.
    await m.deps.pools.createItems([
      { ...newPoolItem('p', 'dead', null), state: 'dlq' },
      { ...newPoolItem('p', 'asked', null), state: 'escalated', escalation: { escalationId: ESCALATION, question: 'q', askedAt: T0, status: 'pending' } },
    ]);
    await m.deps.pools.putEscalationPointer({ escalationId: ESCALATION, poolId: 'p', tenant: T_ROLE, itemId: 'asked', askedAt: T0 });
    await m.deps.pools.putCollection({ poolId: 'p', collectionId: 'c-1', startedAt: T0, until: T0, windowMs: 0, agentCount: 0, chunkStarts: [], version: 0 });
  });

  it.each(Object.keys(routes) as RouteName[])('%s by another tenant → the 404 of a missing one, and nothing changes', async (route) => {
    // Prepare
    const before = await m.snapshot();
    const published = m.bus.published.length;
    // Act
    const answer = await routes[route](asU);
    // Assess
    expect(answer).toEqual(notFound(route));
    expect(await m.snapshot()).toEqual(before);
    expect(m.bus.published.length).toBe(published);
  });

  it.each(Object.keys(routes) as RouteName[])('%s by the owner, from another session of its role → 2xx', async (route) => {
    // Act
    const answer = await routes[route](asT);
    // Assess
    expect([200, 202]).toContain(answer.statusCode);
  });

  it("the same body from another tenant is a 409, not the pool's view; the pool stays T's", async () => {
    // Act
    const byU = await invoke(createPool, { method: 'POST', route: '/pools', body: pool, iamUserArn: U_USER });
    const byT = await invoke(createPool, { method: 'POST', route: '/pools', body: pool, iamUserArn: T_SESSION_2 });
    // Assess
    expect(byU.statusCode).toBe(409);
    expect(byU.body).not.toHaveProperty('poolId');
    expect(byT.statusCode).toBe(200);
    expect(await m.deps.pools.getPool('p')).toMatchObject({ tenant: T_ROLE });
  });

  it("GET /escalations without poolId lists only the caller's tenant's", async () => {
    // Prepare: U's own pool and escalation, and one of the default tenant (as every pointer from before tenants)
    await invoke(createPool, { method: 'POST', route: '/pools', body: { ...pool, poolId: 'pu' }, iamUserArn: U_USER });
    await m.deps.pools.putEscalationPointer({ escalationId: 'pu~x~1', poolId: 'pu', tenant: U_USER, itemId: 'x', askedAt: T0 });
    await m.deps.pools.putEscalationPointer({ escalationId: 'old~x~1', poolId: 'old', itemId: 'x', askedAt: T0 });
    await m.deps.pools.createItems(['pu', 'old'].map((poolId) => ({ ...newPoolItem(poolId, 'x', null), escalation: { escalationId: `${poolId}~x~1`, question: 'q', askedAt: T0, status: 'pending' as const } })));
    // Act
    const [ofT, ofU, ofDefault] = await Promise.all([listedEscalations(asT), listedEscalations(asU), listedEscalations({})]);
    // Assess
    expect(ofT).toEqual([ESCALATION]);
    expect(ofU).toEqual(['pu~x~1']);
    expect(ofDefault).toEqual(['old~x~1']);
  });

  it('locally, the x-vigil-tenant header is the tenant: another header, or none, sees nothing', async () => {
    // Prepare
    await invoke(createPool, { method: 'POST', route: '/pools', body: { ...pool, poolId: 'px' }, headers: { 'x-vigil-tenant': 'team-x' } });
    const read = (headers?: Record<string, string>) =>
      invoke(getPool, { method: 'GET', route: '/pools/{poolId}', pathParameters: { poolId: 'px' }, ...(headers ? { headers } : {}) });
    // Act
    const [own, other, none] = await Promise.all([read({ 'x-vigil-tenant': 'team-x' }), read({ 'x-vigil-tenant': 'team-y' }), read()]);
    // Assess
    expect(own.statusCode).toBe(200);
    expect(other).toEqual({ statusCode: 404, body: { error: { code: 'pool_not_found', message: new PoolNotFoundError('px').message } } });
    expect(none).toEqual(other);
  });
});
