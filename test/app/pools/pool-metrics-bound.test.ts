import { describe, expect, it } from 'vitest';
import { NAMED_COMMAND_TYPES, summarize } from '../../../shared/app/pools/pool-metrics.js';
import { OTHER_COMMAND_TYPES, withTimeoutStat } from '../../../shared/domain/pools/item-history.js';
import { ITEM_BOUNDS, newItemStats, type ItemStats } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { LAMBDA_ANSWER_LIMIT, lambdaAnswerBytes } from './largest-items.js';

describe('GET /pools/{poolId}/metrics stays within Lambda’s 6 MB however many command types agents name', () => {
  it('3,000 items, each with its bounded 32 command types of its own: the answer fits, the busiest types are named and every timeout is counted', () => {
    // Prepare: agents past the template name their commands' types; each item keeps its own bound
    const items: Array<{ itemId: string; stats: ItemStats }> = [];
    for (let i = 0; i < 3_000; i++) {
      let stats = newItemStats();
      for (let k = 0; k < ITEM_BOUNDS.commandTypesCounted; k++) {
        const commandType = i < 10 ? 'shell' : `t${i}-${k}-`.padEnd(64, 'x');
        stats = withTimeoutStat(stats, at(i + k / 100), k + 1, 'agent', { type: 'command', commandIndex: 100, commandType, limitSeconds: 120, elapsedSeconds: 120 });
      }
      items.push({ itemId: `i-${i}`, stats: { ...stats, agentsStarted: 32 } });
    }
    // Act
    const answer = summarize(items);
    // Assess
    expect(lambdaAnswerBytes(answer)).toBeLessThanOrEqual(LAMBDA_ANSWER_LIMIT);
    const command = answer.timeoutsByType.command;
    expect(Object.keys(command)).toHaveLength(NAMED_COMMAND_TYPES + 1);
    expect(command['shell']).toBe(10 * ITEM_BOUNDS.commandTypesCounted);
    const counted = Object.values(command).reduce((sum, n) => sum + n, 0);
    expect(counted).toBe(answer.timeoutsOccurred);
    expect(command[OTHER_COMMAND_TYPES]).toBe(counted - Object.entries(command).filter(([type]) => type !== OTHER_COMMAND_TYPES).reduce((sum, [, n]) => sum + n, 0));
  });

  it('a pool with few command types names every one of them', () => {
    let stats = newItemStats();
    stats = withTimeoutStat(stats, at(1), 1, 'agent', { type: 'command', commandIndex: 0, commandType: 'claude', limitSeconds: 300, elapsedSeconds: 300 });
    expect(summarize([{ itemId: 'i-1', stats }]).timeoutsByType.command).toEqual({ claude: 1 });
  });
});
