import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { agentCall } from '../../../shared/app/pools/agent-call.js';
import { startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { createPool } from '../../../shared/app/pools/create-pool.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import type { AgentCall } from '../../../shared/domain/pools/agent-calls.js';
import { ITEM_BOUNDS, itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager } from '../support/test-manager.js';
import { DYNAMO_ITEM_LIMIT } from './largest-items.js';

describe('a pool item at every bound stays writable while the bus is down (dynalite)', () => {
  const m = useTestManager();

  const fire = (itemId: string, attempt: number, dueAt: number) =>
    firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', itemId), fenceToken: attempt, dueAt });

  it('an item stays below DynamoDB 400 KB: a split answer on a long-lived escalated item while the bus is down is written', async () => {
    // Prepare: the event bus is down for the whole test (the outbox keeps up to its 64 KB bound)
    m.bus.failNextPublishes(1_000_000);
    const long = (prefix: string, n: number) => `${prefix}-${n}-`.padEnd(128, 'x');
    const payload = (bytes: number, tag: string) => ({ tag, blob: 'x'.repeat(bytes - 30 - tag.length) });
    const itemId = long('item', 0);
    await createPool(m.deps, {
      poolId: 'p',
      items: [{ itemId, input: payload(ITEM_BOUNDS.payloadBytes, 'in') }],
      config: { agent_timeout_secs: 10, timeout_escalation: 25, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 1 } },
    });
    let t = 0;
    const attemptOnce = async (n: number, collect: boolean) => {
      m.clock.set(at(t));
      const agentId = long('agent', n);
      const claimed = await claimPoolItem(m.deps, 'p', { agentId, kind: 'agent', claimId: long('claim', n) });
      if (!claimed) throw new Error('nothing to claim');
      const send2 = (c: AgentCall) =>
        agentCall(m.deps, { poolId: 'p', itemId, agentId, attempt: claimed.attempt, token: claimed.token, call: c }).catch((error: unknown) => error);
      if (collect) {
        await startCollection(m.deps, 'p');
        m.clock.set(at(t + 1));
        await send2({ type: 'checkpoint', state: payload(ITEM_BOUNDS.payloadBytes, 'answer') });
        m.clock.set(at(t + 6));
        await send2({ type: 'checkpoint', state: payload(ITEM_BOUNDS.payloadBytes, 'later') });
      }
      t += 10;
      m.clock.set(at(t));
      await fire(itemId, claimed.attempt, at(t));
      m.clock.set(at(t + 0.5));
      await send2({ type: 'terminated', cleanup: 'failed', partialResult: payload(ITEM_BOUNDS.payloadBytes, 'partial') });
      for (let k = 0; k < 3; k++) await send2({ type: 'complete', outcome: 'failed', result: payload(980, `late${k}`) });
      t += 2;
    };
    for (let n = 0; n < 25; n++) await attemptOnce(n, n === 24);
    const escalated = await m.deps.pools.getItem('p', itemId);
    expect(escalated?.state).toBe('escalated');
    await answerEscalation(m.deps, escalated?.escalation?.escalationId ?? '', { option: 'clarify', clarification: 'c'.repeat(4_096) });
    await attemptOnce(25, false);
    const again = await m.deps.pools.getItem('p', itemId);
    expect(again?.state).toBe('escalated');
    // Act: the largest split the API accepts (100 subtasks, 128 KB of inputs)
    const per = Math.floor(ITEM_BOUNDS.subtaskInputsBytes / 100);
    const subtasks = Array.from({ length: 100 }, (_, i) => ({ itemId: long('sub', i), input: payload(per, `s${i}`) }));
    const answered = await answerEscalation(m.deps, again?.escalation?.escalationId ?? '', { option: 'split', subtasks }).catch((error: unknown) => error);
    // Assess
    expect(answered).toMatchObject({ status: 'answered', itemState: 'split' });
    expect((await m.deps.pools.getItem('p', itemId))?.state).toBe('split');
    const { Items = [] } = await m.dynamo.doc.send(new ScanCommand({ TableName: m.tableName, ConsistentRead: true }));
    for (const stored of Items) expect(Buffer.byteLength(JSON.stringify(stored), 'utf8')).toBeLessThan(DYNAMO_ITEM_LIMIT);
    // The outbox made room: what it let go is counted, not silently lost
    expect(m.telemetry.count('OutboxEventsDropped')).toBeGreaterThan(0);
  }, 120_000);
});
