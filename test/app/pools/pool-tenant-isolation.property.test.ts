import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { handler as cancelPool } from '../../../functions/pools/cancel-pool.js';
import { handler as claimItem } from '../../../functions/pools/claim-item.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as getMetrics } from '../../../functions/pools/get-metrics.js';
import { handler as getPool } from '../../../functions/pools/get-pool.js';
import { handler as startCollection } from '../../../functions/pools/start-collection.js';
import { PoolNotFoundError } from '../../../shared/domain/pools/pool-errors.js';
import { invoke } from '../support/http-events.js';
import { callerOf, runIsolated, tenantScripts, usePropertyManagers, type TenantCall } from '../support/tenants.js';

const OPS = ['create', 'get', 'claim', 'cancel', 'metrics', 'collect'] as const;
type Op = (typeof OPS)[number];
type Call = TenantCall<Op>;

function request(call: Call): Parameters<typeof invoke> {
  const caller = callerOf(call.actor, call.session);
  const poolId = call.id;
  const path = { pathParameters: { poolId } };
  switch (call.op) {
    case 'create':
      // Both tenants send the same body for a poolId: only the tenant tells them apart.
      return [createPool, { method: 'POST', route: '/pools', body: { poolId, items: [{ itemId: 'i-1' }, { itemId: 'i-2' }], config: {} }, ...caller }];
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
  const managers = usePropertyManagers();

  it("random interleavings of two tenants' create, get, claim, cancel, metrics and collect", async () => {
    const calls = tenantScripts<Op>('create', OPS, ['pool-0', 'pool-1'], { creates: 3, calls: 10 });
    await fc.assert(
      fc.asyncProperty(calls, async (script) => {
        const m = await managers.fresh();
        await runIsolated(m, script, {
          create: 'create',
          request,
          ownerOfItem: (item, owners) => owners.get(poolOfItem(item) ?? '') ?? 'nobody',
          check: (call, answer, { tenant, owner }) => {
            if (call.op === 'create') return;
            // Another tenant's pool answers exactly as a pool that does not exist.
            if (owner !== tenant) expect(answer).toEqual({ statusCode: 404, body: { error: { code: 'pool_not_found', message: new PoolNotFoundError(call.id).message } } });
            else expect([200, 202, 204, 409]).toContain(answer.statusCode);
          },
        });
      }),
      { numRuns: 15 },
    );
    // Like the jobs' isolation property: a snapshot of the table around every call, seconds on two busy cores.
  }, 120_000);
});
