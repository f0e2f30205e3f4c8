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

  /*
   * Review: zod's record drops a `__proto__` key unseen (it would replace the result's prototype),
   * though JSON.parse and the YAML parser make it an own key: beside another step's command it was
   * left out (201, the pool ran without it), alone it read as "names no command"; in command_timeouts
   * the limit was dropped (201, the default applied). Now each is a 400 naming the key.
   */
  const protoCases: Array<[string, string, string | undefined, string]> = [
    ['a template step naming __proto__ beside shell (JSON)', '{"poolId":"p-proto-1","items":[{"itemId":"i-1"}],"config":{"agent_template":[{"shell":"echo","__proto__":"echo"}]}}', undefined, 'config.agent_template.0.__proto__'],
    ['a template step naming only __proto__ (JSON)', '{"poolId":"p-proto-2","items":[{"itemId":"i-1"}],"config":{"agent_template":[{"__proto__":"echo"}]}}', undefined, 'config.agent_template.0.__proto__'],
    ['command_timeouts naming __proto__ (JSON)', '{"poolId":"p-proto-3","items":[{"itemId":"i-1"}],"config":{"timeout_config":{"command_timeouts":{"shell":10,"__proto__":5}}}}', undefined, 'config.timeout_config.command_timeouts.__proto__'],
    ['a template step naming __proto__ (YAML)', 'poolId: p-proto-4\nitems:\n  - itemId: i-1\nmap:\n  agent_template:\n    - shell: echo\n      __proto__: echo\n', 'application/yaml', 'map.agent_template.0.__proto__'],
  ];
  it.each(protoCases)('POST /pools with %s → 400 naming it, nothing stored', async (_case, body, contentType, field) => {
    // Act
    const answer = await invoke(createPool, { method: 'POST', route: '/pools', body, ...(contentType ? { headers: { 'content-type': contentType } } : {}) });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer).code).toBe('invalid_request');
    expect(errorOf(answer).details?.map((detail) => detail.field)).toContain(field);
    expect(JSON.stringify(errorOf(answer))).toContain('is not a command type');
    expect(await m.snapshot()).toEqual([]);
  });
});
