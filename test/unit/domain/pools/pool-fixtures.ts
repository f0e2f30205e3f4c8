import { decideAgentCall, type AgentCall } from '../../../../shared/domain/pools/agent-calls.js';
import { claimItem } from '../../../../shared/domain/pools/claim-item.js';
import { onItemWakeUp } from '../../../../shared/domain/pools/advance-attempt.js';
import { resolvePoolConfig, type PoolConfigInput } from '../../../../shared/domain/pools/pool-config.js';
import { newPoolItem, type PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import type { Pool } from '../../../../shared/domain/pools/pool.js';
import type { Effect } from '../../../../shared/domain/effects.js';
import { at, T0 } from '../../../support/fixtures.js';

export { at, T0 };

export function poolWith(config: PoolConfigInput = {}, status: Pool['status'] = 'RUNNING'): Pool {
  return { poolId: 'p', status, config: resolvePoolConfig(config), itemCount: 1, createdAt: T0, submissionHash: 'h', version: 1 };
}

export const freshItem = (itemId = 'i-1', input: unknown = { n: 1 }): PoolItem => ({ ...newPoolItem('p', itemId, input), version: 1 });

/** The item claimed by `agentId` at `atSeconds`. */
export function claimed(pool: Pool, item: PoolItem = freshItem(), atSeconds = 0, agentId = 'agent-a', kind: 'agent' | 'expert' = 'agent'): PoolItem {
  return claimItem(item, pool, { agentId, kind }, at(atSeconds)).state;
}

export const call = (item: PoolItem, pool: Pool, atSeconds: number, c: AgentCall, attempt = item.attempt) =>
  decideAgentCall(item, pool, attempt, c, at(atSeconds));

export const wake = (item: PoolItem, pool: Pool, atSeconds: number) => onItemWakeUp(item, pool, at(atSeconds));

export const eventTypes = (effects: readonly Effect[]): string[] =>
  effects.flatMap((effect) => (effect.type === 'Publish' ? [effect.event.detailType] : []));

export const eventOf = (effects: readonly Effect[], detailType: string) => {
  const found = effects.find((effect) => effect.type === 'Publish' && effect.event.detailType === detailType);
  if (found?.type !== 'Publish') throw new Error(`no ${detailType} among ${eventTypes(effects).join(', ')}`);
  return found.event.detail;
};
