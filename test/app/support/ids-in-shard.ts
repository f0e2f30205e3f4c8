import { timerShardOf } from '../../../shared/adapters/aws/jobs-table.js';

/** Job ids whose wake-ups land in `shard` of the timer index. */
export function idsInShard(shard: number, count: number, prefix: string): string[] {
  const ids: string[] = [];
  for (let i = 0; ids.length < count; i++) if (timerShardOf(`${prefix}-${i}`) === String(shard)) ids.push(`${prefix}-${i}`);
  return ids;
}
