import { describe, expect, it } from 'vitest';
import { handler as claimItem } from '../../../functions/pools/claim-item.js';
import { handler as createPool } from '../../../functions/pools/create-pool.js';
import { handler as heartbeat } from '../../../functions/pools/heartbeat.js';
import { errorOf, invoke } from '../support/http-events.js';
import { useHttpTestManager } from '../support/test-manager.js';

/**
 * Review (unclear error): "every non-2xx answer has … message: what is wrong and how to fix it"
 * (contract, Errors). An agent call (`POST /pools/{poolId}/items/{itemId}/heartbeat`, …) without
 * its attempt token, or with the token of another item, is told it needs "the workflow's token …
 * as returned by POST /jobs" / that the header "does not belong to this job, workflow and worker.
 * Use the token POST /jobs returned for it." Pools have no jobs or workflows: following that advice
 * cannot fix the call. The status codes (401 missing_token, 403 invalid_token) are right.
 *
 * Correct: the message names what an agent call needs: the attempt's token that
 * `POST /pools/{poolId}/claims` returned, and does not send the agent to POST /jobs.
 */
describe('pool agent calls refused for their token say how an agent fixes it (dynalite)', () => {
  useHttpTestManager();

  async function claimed() {
    await invoke(createPool, { method: 'POST', route: '/pools', body: { poolId: 'p-1', items: [{ itemId: 'i-1' }, { itemId: 'i-2' }] } });
    const claim = await invoke(claimItem, { method: 'POST', route: '/pools/{poolId}/claims', pathParameters: { poolId: 'p-1' }, body: { agentId: 'agent-1' } });
    return { token: String(claim.body['token']), itemId: String(claim.body['itemId']) };
  }

  it('no x-vigil-token → 401 missing_token whose message points at the claim, not POST /jobs', async () => {
    // Prepare
    await claimed();
    // Act
    const answer = await invoke(heartbeat, {
      method: 'POST',
      route: '/pools/{poolId}/items/{itemId}/heartbeat',
      pathParameters: { poolId: 'p-1', itemId: 'i-1' },
      body: { agentId: 'agent-1', attempt: 1 },
    });
    // Assess
    expect(answer.statusCode).toBe(401);
    expect(errorOf(answer).code).toBe('missing_token');
    expect(errorOf(answer).message).not.toMatch(/POST \/jobs|workflow/);
    expect(errorOf(answer).message).toMatch(/claim/);
  });

  it("another item's token → 403 invalid_token whose message points at the claim, not POST /jobs", async () => {
    // Prepare: the token is the claimed item's; the call names the other item
    const { token, itemId } = await claimed();
    const other = itemId === 'i-1' ? 'i-2' : 'i-1';
    // Act
    const answer = await invoke(heartbeat, {
      method: 'POST',
      route: '/pools/{poolId}/items/{itemId}/heartbeat',
      pathParameters: { poolId: 'p-1', itemId: other },
      headers: { 'x-vigil-token': token },
      body: { agentId: 'agent-1', attempt: 1 },
    });
    // Assess
    expect(answer.statusCode).toBe(403);
    expect(errorOf(answer).code).toBe('invalid_token');
    expect(errorOf(answer).message).not.toMatch(/POST \/jobs|workflow/);
    expect(errorOf(answer).message).toMatch(/claim/);
  });
});
