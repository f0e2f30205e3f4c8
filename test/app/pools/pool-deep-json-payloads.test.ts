import { describe, expect, it } from 'vitest';
import { handler as checkpoint } from '../../../functions/pools/checkpoint.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { errorOf, invoke } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';

/** `[[[…]]]` nested `depth` levels, as text: a few bytes a level, so a deep one still fits far under the body limit. */
const nestedText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

/**
 * A payload nested far past what DynamoDB stores (24 levels) was checked by recursive walks that ran
 * out of stack on tens of thousands of levels: a 500 for what is the caller's mistake.
 */
describe('pool payloads nested tens of thousands of levels deep', () => {
  const m = useHttpTestManager();

  it('an item input 50,000 levels deep → 400 naming items.0.input and its depth limit, and no pool is stored', async () => {
    // Prepare
    const body = `{"poolId":"deep","items":[{"itemId":"i-1","input":${nestedText(50_000)}}]}`;
    // Act
    const answer = await invoke(createPool, { method: 'POST', route: '/pools', body });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer).details).toEqual([expect.objectContaining({ field: 'items.0.input', message: expect.stringMatching(/nests deeper than 24 levels/) })]);
    expect(await m.deps.pools.getPool('deep')).toBeUndefined();
  });

  it("an agent's checkpoint state 50,000 levels deep → 400 naming state", async () => {
    // Prepare
    const body = `{"agentId":"agent-1","attempt":1,"state":${nestedText(50_000)}}`;
    // Act
    const answer = await invoke(checkpoint, {
      method: 'POST',
      route: '/pools/{poolId}/items/{itemId}/checkpoints',
      pathParameters: { poolId: 'p', itemId: 'i-1' },
      headers: { 'x-vigil-token': 'any' },
      body,
    });
    // Assess
    expect(answer.statusCode, JSON.stringify(answer.body)).toBe(400);
    expect(errorOf(answer).details?.map((problem) => problem.field)).toEqual(['state']);
  });
});
