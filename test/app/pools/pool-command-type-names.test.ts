import { describe, expect, it } from 'vitest';
import { handler as claimItem } from '../../../functions/pools/claim-item.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as startCommand } from '../../../functions/pools/start-command.js';
import { errorOf, invoke } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';

/**
 * Review (bad input → 500): command types are free names ("any other command type 120 s", contract
 * Agent fleets v2), and the pattern admitted `toString`, `valueOf` or `constructor`: looked up in a
 * plain object of defaults they found `Object.prototype.toString`, the limit became NaN and the write
 * a 500. Command types are keys of stored maps (limits, timeout counts), where such a key cannot be
 * stored either (constructor-key-payloads.test.ts): they are refused with a 400 naming the field.
 */
describe('command types named like members of every JavaScript object (dynalite)', () => {
  const m = useHttpTestManager();

  it.each(['toString', 'valueOf', 'constructor', 'hasOwnProperty'])('POST /pools with agent_template [{ %s: … }] → 400 naming the step, nothing stored', async (type) => {
    // Act
    const answer = await invoke(createPool, {
      method: 'POST',
      route: '/pools',
      body: { poolId: `p-${type}`, items: [{ itemId: 'i-1' }], config: { agent_template: [{ [type]: 'echo ${item.id}' }] } },
    });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer).code).toBe('invalid_request');
    expect(JSON.stringify(errorOf(answer))).toContain('choose another command type');
    expect(await m.snapshot()).toEqual([]);
  });

  it('commands/{index}/start with type "toString" → 400 naming type; the same call with another type → 200 with the 120 s default', async () => {
    // Prepare: a `vigil run -- CMD` style pool: the agent names its commands' types
    await invoke(createPool, {
      method: 'POST',
      route: '/pools',
      body: { poolId: 'p-cmd', items: [{ itemId: 'i-1' }], config: { timeout_config: { timeout_policy: 'per_command' } } },
    });
    const claim = await invoke(claimItem, { method: 'POST', route: '/pools/{poolId}/claims', pathParameters: { poolId: 'p-cmd' }, body: { agentId: 'agent-1' } });
    const start = (type: string) =>
      invoke(startCommand, {
        method: 'POST',
        route: '/pools/{poolId}/items/{itemId}/commands/{index}/start',
        pathParameters: { poolId: 'p-cmd', itemId: 'i-1', index: '0' },
        headers: { 'x-vigil-token': String(claim.body['token']) },
        body: { agentId: 'agent-1', attempt: 1, type },
      });
    // Act
    const refused = await start('toString');
    const started = await start('make');
    // Assess
    expect(refused.statusCode, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(errorOf(refused))).toContain('"type"');
    expect(started.statusCode, JSON.stringify(started.body)).toBe(200);
    expect(started.body['deadlineAt']).toBe(new Date(m.clock.now() + 120_000).toISOString());
  });
});
