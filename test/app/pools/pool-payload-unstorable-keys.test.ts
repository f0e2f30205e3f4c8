import { describe, expect, it } from 'vitest';
import { handler as checkpoint } from '../../../functions/pools/checkpoint.js';
import { handler as claimItem } from '../../../functions/pools/claim-item.js';
import { handler as completeItem } from '../../../functions/pools/complete-item.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as getItem } from '../../../functions/pools/get-item.js';
import { errorOf, invoke } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';

/**
 * Review (bad input / contract): an item's `input`, a checkpoint's `state` and an attempt's `result`
 * are any JSON (contract, Agent fleets v2), but the DynamoDB SDK for JavaScript reads an own
 * `constructor` key as the object's class (`{"constructor": "make"}` was a 500 on every route that
 * stores it, and `complete` could never report its result) and loses `__proto__` on the way back.
 * Like the numbers DynamoDB cannot store, such keys are refused by name with a 400 that says to
 * rename them, and nothing is written.
 */
describe('payloads holding a "constructor" or "__proto__" key are refused by name, changing nothing (dynalite)', () => {
  const m = useHttpTestManager();

  it.each([
    ['{"constructor": "make"}', { constructor: 'make', target: 'all' }],
    ['{"__proto__": {…}} deep inside', JSON.parse('{"steps": [{"__proto__": {"x": 1}}]}') as unknown],
  ])('POST /pools with an item input %s → 400 naming items.0.input, nothing stored', async (_name, input) => {
    // Act
    const created = await invoke(createPool, { method: 'POST', route: '/pools', body: { poolId: 'p-1', items: [{ itemId: 'i-1', input }] } });
    // Assess
    expect(created.statusCode, JSON.stringify(created.body)).toBe(400);
    expect(JSON.stringify(errorOf(created))).toContain('items.0.input');
    expect(errorOf(created).message).toMatch(/rename the key/);
    expect(await m.snapshot()).toEqual([]);
  });

  it('a checkpoint state and a complete result holding {"constructor": …} → 400; the attempt runs on and can report again', async () => {
    // Prepare
    const payload = { constructor: 'make', target: 'all' };
    await invoke(createPool, { method: 'POST', route: '/pools', body: { poolId: 'p-2', items: [{ itemId: 'i-1', input: { n: 1 } }] } });
    const claim = await invoke(claimItem, { method: 'POST', route: '/pools/{poolId}/claims', pathParameters: { poolId: 'p-2' }, body: { agentId: 'agent-1' } });
    const agentCall = { pathParameters: { poolId: 'p-2', itemId: 'i-1' }, headers: { 'x-vigil-token': String(claim.body['token']) } };
    const before = await invoke(getItem, { method: 'GET', route: '/pools/{poolId}/items/{itemId}', pathParameters: { poolId: 'p-2', itemId: 'i-1' } });
    // Act
    const saved = await invoke(checkpoint, { method: 'POST', route: '/pools/{poolId}/items/{itemId}/checkpoints', ...agentCall, body: { agentId: 'agent-1', attempt: 1, state: payload } });
    const completeCall = { method: 'POST', route: '/pools/{poolId}/items/{itemId}/complete', ...agentCall } as const;
    const refused = await invoke(completeItem, { ...completeCall, body: { agentId: 'agent-1', attempt: 1, outcome: 'succeeded', result: payload } });
    const after = await invoke(getItem, { method: 'GET', route: '/pools/{poolId}/items/{itemId}', pathParameters: { poolId: 'p-2', itemId: 'i-1' } });
    const renamed = await invoke(completeItem, { ...completeCall, body: { agentId: 'agent-1', attempt: 1, outcome: 'succeeded', result: { builder: 'make' } } });
    // Assess
    expect([saved.statusCode, refused.statusCode]).toEqual([400, 400]);
    expect(JSON.stringify(errorOf(saved))).toContain('state');
    expect(JSON.stringify(errorOf(refused))).toContain('result');
    expect(after.body).toEqual(before.body);
    expect(renamed.statusCode).toBe(200);
  });
});
