import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handler as cancelPool } from '../../../functions/pools/cancel-pool.js';
import { handler as claimItem } from '../../../functions/pools/claim-item.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as getMetrics } from '../../../functions/pools/get-metrics.js';
import { handler as getPool } from '../../../functions/pools/get-pool.js';
import { handler as startCollection } from '../../../functions/pools/start-collection.js';
import { PoolNotFoundError } from '../../../shared/domain/pools/pool-errors.js';
import { DEFAULT_TENANT } from '../../../shared/domain/tenant.js';
import { installManagerResolver } from '../../../shared/wiring/manager-resolver.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { invoke, type HttpRequest } from '../support/http-events.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';

/** Two tenants: T signs its calls with any session of one role (AWS); U is the default tenant (no IAM, no header). */
const T = 'arn:aws:sts::111111111111:assumed-role/team-t';
const TENANTS = { T, U: DEFAULT_TENANT } as const;
type Actor = keyof typeof TENANTS;
const callerOf = (actor: Actor, session: number): Pick<HttpRequest, 'iamUserArn'> => (actor === 'T' ? { iamUserArn: `${T}/session-${session}` } : {});

const OPS = ['create', 'get', 'claim', 'cancel', 'metrics', 'collect'] as const;
type Op = (typeof OPS)[number];
interface Call {
  actor: Actor;
  session: number;
  op: Op;
  poolId: string;
}

function request(call: Call): Parameters<typeof invoke> {
  const caller = callerOf(call.actor, call.session);
  const path = { pathParameters: { poolId: call.poolId } };
  switch (call.op) {
    case 'create':
      // Both tenants send the same body for a poolId: only the tenant tells them apart.
      return [createPool, { method: 'POST', route: '/pools', body: { poolId: call.poolId, items: [{ itemId: 'i-1' }, { itemId: 'i-2' }], config: {} }, ...caller }];
    case 'get':
      return [getPool, { method: 'GET', route: '/pools/{poolId}', ...path, ...caller }];
    case 'claim':
      return [claimItem, { method: 'POST', route: '/pools/{poolId}/claims', ...path, body: { agentId: `agent-${call.session}` }, ...caller }];
    case 'cancel':
      return [cancelPool, { method: 'POST', route: '/pools/{poolId}/cancel', ...path, body: {}, ...caller }];
    case 'metrics':
      return [getMetrics, { method: 'GET', route: '/pools/{poolId}/metrics', ...path, ...caller }];
    case 'collect':
      return [startCollection, { method: 'POST', route: '/pools/{poolId}/checkpoints/collect', ...path, ...caller }];
  }
}

/** A pool's items (`POOL#<poolId>`) are its owner's; nothing else is written by these calls. */
const poolOfItem = (item: Record<string, unknown>): string | undefined => /^POOL#(.*)$/.exec(String(item['pk']))?.[1];

describe("property: no call of one tenant ever changes or reveals another tenant's pool (dynalite)", () => {
  let dynamo: TestDynamo;
  let m: TestManager;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
    installManagerResolver(async () => m.deps);
  });
  afterAll(() => dynamo.close());

  it("random interleavings of two tenants' create, get, claim, cancel, metrics and collect", async () => {
    const actor = fc.constantFrom<Actor>('T', 'U');
    const session = fc.integer({ min: 1, max: 3 });
    const poolId = fc.constantFrom('pool-0', 'pool-1');
    const creates = fc.array(fc.record({ actor, session, op: fc.constant<Op>('create'), poolId }), { minLength: 1, maxLength: 3 });
    const calls = fc
      .tuple(creates, fc.array(fc.record({ actor, session, op: fc.constantFrom(...OPS), poolId }), { minLength: 1, maxLength: 10 }))
      .map(([first, rest]) => [...first, ...rest]);
    await fc.assert(
      fc.asyncProperty(calls, async (script) => {
        m = await testManager(dynamo);
        const owners = new Map<string, string>();
        for (const call of script) {
          const tenant = TENANTS[call.actor];
          const othersItems = async () => (await m.snapshot()).filter((item) => owners.get(poolOfItem(item) ?? '') !== tenant);
          const before = await othersItems();
          const answer = await invoke(...request(call));
          const owner = owners.get(call.poolId);
          if (call.op === 'create' && owner === undefined) {
            expect(answer.statusCode).toBe(201);
            owners.set(call.poolId, tenant);
          }
          // Nothing of another tenant's pool changed, whatever the call and its answer.
          expect(await othersItems()).toEqual(before);
          if (call.op === 'create') {
            if (owner !== undefined) expect(answer.statusCode).toBe(owner === tenant ? 200 : 409);
          } else if (owner !== tenant) {
            // Another tenant's pool answers exactly as a pool that does not exist.
            expect(answer).toEqual({ statusCode: 404, body: { error: { code: 'pool_not_found', message: new PoolNotFoundError(call.poolId).message } } });
          } else {
            expect([200, 202, 204, 409]).toContain(answer.statusCode);
          }
        }
      }),
      { numRuns: 15 },
    );
  });
});
