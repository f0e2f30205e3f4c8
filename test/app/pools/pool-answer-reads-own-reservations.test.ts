import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager, type TestManager } from '../support/test-manager.js';
import { claim, CrashBeforeAnswerWrite, newPool, refusal } from './pool-test-support.js';

const SPLITS_BEFORE = 50;
const SUBTASKS_PER_SPLIT = 100;

/** A store over the test's table that counts the SUBTASK# rows it reads (by Query, or by key). */
function countingSubtaskReads(m: TestManager) {
  const counted = { queried: 0, readByKey: 0 };
  const doc = DynamoDBDocumentClient.from(m.dynamo.client, { marshallOptions: { removeUndefinedValues: true } });
  const send = doc.send.bind(doc) as (command: unknown) => Promise<{ ScannedCount?: number }>;
  doc.send = (async (command: { constructor: { name: string }; input: Record<string, unknown> }) => {
    const answer = await send(command);
    const values = command.input['ExpressionAttributeValues'] as Record<string, unknown> | undefined;
    if (command.constructor.name === 'QueryCommand' && Object.values(values ?? {}).includes('SUBTASK#')) counted.queried += answer.ScannedCount ?? 0;
    if (command.constructor.name === 'BatchGetCommand') {
      const requests = Object.values(command.input['RequestItems'] as Record<string, { Keys: Array<{ sk: string }> }>);
      counted.readByKey += requests.flatMap((request) => request.Keys).filter((key) => key.sk.startsWith('SUBTASK#')).length;
    }
    return answer;
  }) as typeof doc.send;
  return { counted, pools: new DynamoPoolStore(doc, m.tableName) };
}

/** Item x escalated for real (timeout_escalation 1, no grace), in a pool whose earlier splits left their reservation rows for good. */
async function escalatedAfterManySplits(m: TestManager): Promise<string> {
  await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['x']);
  const agent = await claim(m.deps, 'agent-a');
  m.clock.set(at(10));
  await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', 'x'), fenceToken: agent.attempt, dueAt: at(10) });
  const rows = Array.from({ length: SPLITS_BEFORE * SUBTASKS_PER_SPLIT }, (_, n) => ({
    pk: 'POOL#p',
    sk: `SUBTASK#s-${Math.floor(n / SUBTASKS_PER_SPLIT)}-${n % SUBTASKS_PER_SPLIT}`,
    owner: `p~e-${Math.floor(n / SUBTASKS_PER_SPLIT)}~1`,
  }));
  for (let i = 0; i < rows.length; i += 25) {
    await m.dynamo.doc.send(new BatchWriteCommand({ RequestItems: { [m.tableName]: rows.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) } }));
  }
  return (await m.deps.pools.getItem('p', 'x'))?.escalation?.escalationId ?? '';
}

// An answer releases the subtask ids its escalation reserved and no split kept. It used to find them by
// a Query of every SUBTASK# row of the pool (rows are never deleted), filtered on owner: after 200
// splits a plain skip read 20,000 rows. Each escalation now names the ids its answers reserved on one
// row of its own, written before any is reserved, so an answer reads that row and those ids only.
describe('pools on dynalite: an escalation answer reads only the subtask ids it reserved', () => {
  const m = useTestManager();

  it(`a skip in a pool whose ${SPLITS_BEFORE} earlier splits reserved ${SPLITS_BEFORE * SUBTASKS_PER_SPLIT} ids reads none of them`, async () => {
    // Prepare
    const escalationId = await escalatedAfterManySplits(m);
    const { counted, pools } = countingSubtaskReads(m);
    // Act
    await answerEscalation({ ...m.deps, pools }, escalationId, { option: 'skip' });
    // Assess
    expect((await m.deps.pools.getItem('p', 'x'))?.state).toBe('skipped');
    expect(counted).toEqual({ queried: 0, readByKey: 0 });
  }, 120_000);

  it('a skip after a split cut off before its write reads (and frees) exactly the two ids that split reserved', async () => {
    // Prepare
    const escalationId = await escalatedAfterManySplits(m);
    const subtasks = [{ itemId: 'sub-a' }, { itemId: 'sub-b' }];
    await refusal(answerEscalation({ ...m.deps, pools: new CrashBeforeAnswerWrite(m.doc, m.tableName) }, escalationId, { option: 'split', subtasks }));
    const { counted, pools } = countingSubtaskReads(m);
    // Act
    await answerEscalation({ ...m.deps, pools }, escalationId, { option: 'skip' });
    // Assess
    expect(counted).toEqual({ queried: 0, readByKey: 2 });
    expect(await m.deps.pools.subtaskIdsHeldBy('p', escalationId)).toEqual([]);
  }, 120_000);
});
