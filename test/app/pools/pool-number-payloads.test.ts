import { describe, expect, it } from 'vitest';
import { agentCall } from '../../../shared/app/pools/agent-call.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { createPool } from '../../../shared/app/pools/create-pool.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { answerBody, checkpointBody, completeItemBody, createPoolBody, terminatedBody } from '../../../shared/contract/pool-requests.js';
import type { AgentCall } from '../../../shared/domain/pools/agent-calls.js';
import { ITEM_BOUNDS, itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { storedBytes } from '../../../shared/domain/stored-size.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';

/**
 * `[1,1,1,…]`: JSON spends 2 bytes an element, DynamoDB 3 (a byte of list-element overhead and a
 * 2-byte number). The payload bounds counted JSON, so each 32 KB payload took ~48 KB of its item,
 * and an escalated item at its bounds could not take the largest split the API accepted: the
 * human's answer was a 500 on every retry (a review finding). `ones(bytes)` is `bytes` as stored.
 */
const ones = (bytes: number) => {
  const value = { n: Array.from({ length: Math.floor((bytes - 8) / 3) }, () => 1) };
  expect(storedBytes(value)).toBeLessThanOrEqual(bytes);
  return value;
};
/** The same list at `bytes` as JSON: what the bounds took before. */
const onesAsJson = (bytes: number) => ({ n: Array.from({ length: Math.floor((bytes - 8) / 2) }, () => 1) });

describe('payload bounds count what DynamoDB stores, not only JSON (dynalite)', () => {
  const m = useTestManager();

  it('a payload of small numbers within 32 KB as JSON but past it as stored is refused with a 400 that says why, in each place payloads enter', () => {
    // Prepare
    const payload = onesAsJson(ITEM_BOUNDS.payloadBytes);
    expect(JSON.stringify(payload).length).toBeLessThanOrEqual(ITEM_BOUNDS.payloadBytes);
    // Act
    const refusals = [
      createPoolBody.safeParse({ items: [{ itemId: 'a', input: payload }] }),
      checkpointBody.safeParse({ agentId: 'agent-1', attempt: 1, state: payload }),
      completeItemBody.safeParse({ agentId: 'agent-1', attempt: 1, outcome: 'succeeded', result: payload }),
      terminatedBody.safeParse({ agentId: 'agent-1', attempt: 1, cleanup: 'failed', partialResult: payload }),
    ];
    // Assess
    for (const refusal of refusals) {
      expect(refusal.success).toBe(false);
      expect(JSON.stringify(refusal.error?.issues)).toContain('as JSON and as DynamoDB stores it');
    }
    expect(checkpointBody.safeParse({ agentId: 'agent-1', attempt: 1, state: ones(ITEM_BOUNDS.payloadBytes) }).success).toBe(true);
  });

  it('an escalated item holding the largest number payloads the API takes still takes the largest split it accepts: written, its subtasks created', async () => {
    const itemId = 'item-1';
    const create = { poolId: 'p', items: [{ itemId, input: ones(ITEM_BOUNDS.payloadBytes) }], config: { agent_timeout_secs: 10, timeout_escalation: 1, timeout_config: { timeout_action: 'retry' as const, cleanup_grace_period_secs: 2 } } };
    expect(createPoolBody.safeParse(create).success).toBe(true);
    await createPool(m.deps, create);
    m.clock.set(at(0));
    const claimed = await claimPoolItem(m.deps, 'p', { agentId: 'agent-1', kind: 'agent' });
    if (!claimed) throw new Error('nothing to claim');
    const send = (call: AgentCall) =>
      agentCall(m.deps, { poolId: 'p', itemId, agentId: 'agent-1', attempt: claimed.attempt, token: claimed.token, call }).catch((error: unknown) => error);
    const state = ones(ITEM_BOUNDS.payloadBytes);
    expect(checkpointBody.safeParse({ agentId: 'agent-1', attempt: 1, state }).success).toBe(true);
    // A collection's answer, then a later checkpoint: both states are kept on the item.
    await startCollection(m.deps, 'p');
    m.clock.set(at(1));
    await send({ type: 'checkpoint', state });
    m.clock.set(at(2));
    await send({ type: 'checkpoint', state: ones(ITEM_BOUNDS.payloadBytes - 2) });
    // The agent limit passes; the agent stops within the grace period with its partial result.
    m.clock.set(at(10));
    const due = (await m.deps.pools.getItem('p', itemId))?.timerDueAt ?? at(10);
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', itemId), fenceToken: 1, dueAt: due });
    m.clock.set(at(10.5));
    const partialResult = ones(ITEM_BOUNDS.payloadBytes);
    expect(terminatedBody.safeParse({ agentId: 'agent-1', attempt: 1, cleanup: 'failed', partialResult }).success).toBe(true);
    await send({ type: 'terminated', cleanup: 'failed', partialResult });
    // Three late completions, each kept whole (≤ 1 KB as stored).
    const late = ones(ITEM_BOUNDS.lateResultBytes);
    expect(completeItemBody.safeParse({ agentId: 'agent-1', attempt: 1, outcome: 'failed', result: late }).success).toBe(true);
    for (let k = 0; k < 3; k++) await send({ type: 'complete', outcome: 'failed', result: late });
    const escalated = await m.deps.pools.getItem('p', itemId);
    expect(escalated?.state).toBe('escalated');

    // Act: the largest split the API accepts (100 subtasks with 128-character ids), its inputs number arrays (128 KB as stored in total)
    const per = Math.floor(ITEM_BOUNDS.subtaskInputsBytes / 100);
    const answer = { option: 'split' as const, subtasks: Array.from({ length: 100 }, (_, i) => ({ itemId: `sub-${i}-`.padEnd(128, 'x'), input: ones(per) })) };
    expect(answerBody.safeParse(answer).success).toBe(true);
    const answered = await answerEscalation(m.deps, escalated?.escalation?.escalationId ?? '', answer).catch((error: unknown) => error);

    // Assess: applied like any accepted answer, never a DynamoDB refusal
    expect(answered, String(answered)).toMatchObject({ status: 'answered', itemState: 'split' });
    expect((await m.deps.pools.getItem('p', 'sub-99-'.padEnd(128, 'x')))?.state).toBe('available');
  }, 60_000);
});
