import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { agentCall } from '../../../shared/app/pools/agent-call.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { createPool } from '../../../shared/app/pools/create-pool.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import type { AgentCall } from '../../../shared/domain/pools/agent-calls.js';
import type { PoolConfigInput } from '../../../shared/domain/pools/pool-config.js';
import { itemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import type { TimerRequest } from '../../../shared/ports/timers.js';
import type { PoolStore } from '../../../shared/ports/pool-store.js';
import { at } from '../../support/fixtures.js';
import type { DynamoCall, TestManager } from '../support/test-manager.js';

/**
 * The real DynamoDB pool store with one interleaving point: the next `saveItem` first lets a
 * competitor run to completion, so both decisions come from the same stored version.
 */
export class InterleavingPoolStore extends DynamoPoolStore {
  private competitor: (() => Promise<unknown>) | undefined;

  beforeNextSave(competitor: () => Promise<unknown>): void {
    this.competitor = competitor;
  }

  override async saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (competitor) await competitor();
    return super.saveItem(item, expectedVersion);
  }
}

/** The test manager with an interleaving pool store over its table. */
export function withInterleaving(m: TestManager): { deps: ManagerDeps; store: InterleavingPoolStore } {
  const store = new InterleavingPoolStore(m.doc, m.tableName);
  return { deps: { ...m.deps, pools: store }, store };
}

export async function newPool(deps: ManagerDeps, config: PoolConfigInput, itemIds: string[] = ['i-1'], poolId = 'p', tenant?: string) {
  return createPool(deps, { poolId, items: itemIds.map((itemId) => ({ itemId, input: { itemId } })), config }, tenant);
}

export interface Claimed {
  itemId: string;
  attempt: number;
  token: string;
  agentId: string;
}

export async function claim(deps: ManagerDeps, agentId: string, poolId = 'p'): Promise<Claimed> {
  const claimed = await claimPoolItem(deps, poolId, { agentId, kind: 'agent' });
  if (!claimed) throw new Error(`${agentId} found nothing to claim`);
  return { itemId: claimed.itemId, attempt: claimed.attempt, token: claimed.token, agentId };
}

export const send = (deps: ManagerDeps, claimed: Claimed, call: AgentCall, poolId = 'p') =>
  agentCall(deps, { poolId, itemId: claimed.itemId, agentId: claimed.agentId, attempt: claimed.attempt, token: claimed.token, call });

export async function refusal(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call was not refused');
}

/**
 * Delivers a pass's armed wake-ups (a stop's wake pass, a collection's) one after another, as the timer
 * queue would, until it arms no more; each delivery is one invocation. Answers what was delivered.
 */
export async function deliverPassWakeUps(m: TestManager, deps: ManagerDeps, timerId: string, delivered: TimerRequest[] = []): Promise<TimerRequest[]> {
  for (let next = m.timers.current(timerId); next && !delivered.includes(next); next = m.timers.current(timerId)) {
    delivered.push(next);
    await firePoolTimer(deps, next);
  }
  return delivered;
}

/** The pool items `calls` wrote, by id, in order: an item written twice is named twice. */
export const writtenItems = (calls: readonly DynamoCall[]): string[] =>
  calls.flatMap((call) => {
    const sk = String(call.input.Item?.sk ?? '');
    return call.command === 'PutCommand' && sk.startsWith('ITEM#') ? [sk.slice('ITEM#'.length)] : [];
  });

type StoreWrite = 'savePool' | 'saveItem' | 'saveCollection';

/**
 * The real store for one invocation that is cut off at a write: the first `after` calls of `write`
 * go through, every later one fails (the Lambda is gone), and nothing after them runs.
 */
export function cutOffAt(pools: PoolStore, write: StoreWrite, after = 0): PoolStore {
  let left = after;
  const real = pools[write].bind(pools) as (...args: unknown[]) => Promise<unknown>;
  return Object.assign(Object.create(pools) as PoolStore, {
    [write]: (...args: unknown[]) => (left-- > 0 ? real(...args) : Promise.reject(new Error(`the Lambda was cut off at ${write}`))),
  });
}

/** The store as an invocation cut off between its reservations and the answer's write left it. */
export class CrashBeforeAnswerWrite extends DynamoPoolStore {
  override async saveItem(_item: PoolItem, _expectedVersion: number): Promise<PoolItem> {
    throw new Error('cut off before the answer was written');
  }
}

/** Two items of a new pool 'p', escalated after one timeout each; answers their escalation ids. */
export async function twoEscalations(m: TestManager): Promise<[string, string]> {
  await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 0 }, timeout_escalation: 1 }, ['i-1', 'i-2']);
  const held = [await claim(m.deps, 'agent-a'), await claim(m.deps, 'agent-b')];
  m.clock.set(at(10));
  for (const claimed of held) await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', claimed.itemId), fenceToken: claimed.attempt, dueAt: at(10) });
  const escalationOf = async (itemId: string) => (await m.deps.pools.getItem('p', itemId))?.escalation?.escalationId ?? '';
  return [await escalationOf('i-1'), await escalationOf('i-2')];
}

/** The rows naming the subtask ids an escalation's split answers reserved in pool 'p', read behind the store's back. */
export async function reservationRows(m: TestManager, escalationId: string): Promise<Array<Record<string, unknown>>> {
  const rows: Array<Record<string, unknown>> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await m.dynamo.doc.send(
      new QueryCommand({
        TableName: m.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :rows)',
        ExpressionAttributeValues: { ':pk': 'POOL#p', ':rows': `SPLITIDS#${escalationId}` },
        ExclusiveStartKey: startKey,
      }),
    );
    rows.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return rows;
}
