import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { retryDeadLetter } from '../../../shared/app/pools/dead-letters.js';
import { answerEscalation } from '../../../shared/app/pools/escalations.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import type { ItemStateEntry } from '../../../shared/domain/pools/item-census.js';
import { itemTimerId } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager, type TestManager } from '../support/test-manager.js';
import { claim, newPool, send, type Claimed } from './pool-test-support.js';

/**
 * The real store over dynalite, whose `poolItems` index (synchronous on dynalite) can be held at what
 * it showed at one moment: on AWS the index lags the table's writes, and the simulator lags it too.
 */
class LaggingIndexStore extends DynamoPoolStore {
  private shown: ItemStateEntry[] | undefined;

  /** From now on the index shows the pool as it is now. */
  async holdIndex(poolId: string): Promise<void> {
    this.shown = await super.itemStates(poolId, 'index');
  }

  override async itemStates(poolId: string, from: 'index' | 'table'): Promise<ItemStateEntry[]> {
    return from === 'index' && this.shown ? this.shown : super.itemStates(poolId, from);
  }
}

function lagging(m: TestManager): { deps: ManagerDeps; store: LaggingIndexStore } {
  const store = new LaggingIndexStore(m.doc, m.tableName);
  return { deps: { ...m.deps, pools: store }, store };
}

/** Each claimed item times out (10 s, no grace) and takes its fate (`dlq`, or an escalation with `timeout_escalation: 1`). */
async function timeOut(m: TestManager, claimed: Claimed): Promise<void> {
  m.clock.set(at(10));
  await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', claimed.itemId), fenceToken: claimed.attempt, dueAt: at(10) });
}

// A pool's counts come from its eventually consistent index (pool-reads-independent-of-payloads). Its
// completion must neither wait forever on an item the index still shows open, nor complete over an
// item the index does not show open yet (review finding: the index may lag both ways).
describe('pools on dynalite: the completion of a pool whose index lags its writes', () => {
  const m = useTestManager();

  it('the last item completes while the index still shows it running: the pool completes (the item is read back from the table)', async () => {
    // Prepare
    const { deps, store } = lagging(m);
    await newPool(m.deps, { agent_timeout_secs: 600 }, ['a']);
    const agent = await claim(m.deps, 'agent-a');
    await store.holdIndex('p');
    // Act
    await send(deps, agent, { type: 'complete', outcome: 'succeeded' });
    // Assess
    expect((await m.deps.pools.getPool('p'))?.status).toBe('COMPLETED');
  });

  it('a dead letter retried in a COMPLETED pool while the index still shows it dead-lettered: a GET leaves the pool RUNNING', async () => {
    // Prepare: a dead-lettered, b succeeded: the pool COMPLETED
    const { deps, store } = lagging(m);
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0, timeout_action: 'dlq' } }, ['a', 'b']);
    const first = await claim(m.deps, 'agent-a');
    const second = await claim(m.deps, 'agent-b');
    const [late, done] = first.itemId === 'a' ? [first, second] : [second, first];
    await send(m.deps, done, { type: 'complete', outcome: 'succeeded' });
    await timeOut(m, late);
    expect((await getPool(m.deps, 'p')).status).toBe('COMPLETED');
    await store.holdIndex('p');
    // Act: the operator redrives a; the pool runs again, and a GET repairs completions
    await retryDeadLetter(m.deps, 'p', 'a', undefined);
    const pool = await getPool(deps, 'p');
    // Assess: the redriven item was read back (the pool remembers it opened it), not taken from the index
    expect({ status: pool.status, available: pool.counts?.available }).toEqual({ status: 'RUNNING', available: 1 });
  });

  it('a split whose subtasks the index does not show yet: a GET leaves the pool RUNNING', async () => {
    // Prepare: x escalated after one timeout
    const { deps, store } = lagging(m);
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['x']);
    await timeOut(m, await claim(m.deps, 'agent-a'));
    const escalationId = (await m.deps.pools.getItem('p', 'x'))?.escalation?.escalationId ?? '';
    await store.holdIndex('p');
    // Act: split into two subtasks; the index still shows x escalated and no subtask
    await answerEscalation(m.deps, escalationId, { option: 'split', subtasks: [{ itemId: 'x-1' }, { itemId: 'x-2' }] });
    const pool = await getPool(deps, 'p');
    // Assess: RUNNING, a subtask read back as available (counts read off a lagging index may lag a moment too)
    expect({ status: pool.status, availableSeen: (pool.counts?.available ?? 0) > 0 }).toEqual({ status: 'RUNNING', availableSeen: true });
  });

  it('a new pool whose index does not show its items yet is counted on the table: a GET does not complete it', async () => {
    // Prepare: the index shows nothing of p yet
    const { deps, store } = lagging(m);
    await store.holdIndex('p');
    await newPool(m.deps, { agent_timeout_secs: 600 }, ['a', 'b']);
    // Act
    const pool = await getPool(deps, 'p');
    // Assess
    expect({ status: pool.status, available: pool.counts?.available }).toEqual({ status: 'RUNNING', available: 2 });
  });
});
