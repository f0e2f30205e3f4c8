import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { claimItem } from '../../../../shared/domain/pools/claim-item.js';
import { askForCheckpoint } from '../../../../shared/domain/pools/item-answers.js';
import type { AgentCall } from '../../../../shared/domain/pools/agent-calls.js';
import { ITEM_BOUNDS, type PoolItem } from '../../../../shared/domain/pools/pool-item.js';
import { at, call, freshItem, poolWith, wake } from './pool-fixtures.js';

const DYNAMO_ITEM_LIMIT = 400 * 1024;
/** The largest payload the API accepts (`boundedJson`), as an agent trying to grow the item would send. */
const maxPayload = { blob: 'x'.repeat(ITEM_BOUNDS.payloadBytes - 20) };

const step = fc.oneof(
  fc.record({ kind: fc.constant('claim' as const) }),
  // A checkpoint collection asks the running attempt: its answer is kept beside later checkpoints.
  fc.record({ kind: fc.constant('collect' as const) }),
  fc.record({ kind: fc.constant('wake' as const) }),
  fc.record({
    kind: fc.constant('call' as const),
    staleBy: fc.integer({ min: 0, max: 2 }),
    call: fc.constantFrom<AgentCall>(
      { type: 'heartbeat' },
      { type: 'checkpoint', state: maxPayload },
      { type: 'complete', outcome: 'failed', result: maxPayload },
      { type: 'terminated', cleanup: 'failed', partialResult: maxPayload },
      { type: 'command_start', index: 0, commandType: 'shell' },
    ),
  }),
);

describe('an item stays within DynamoDB limits whatever agents send', () => {
  it('history, late results and windows stay capped; the item stays far below 400 KB', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 300 }), (steps) => {
        // Prepare: retry keeps the item cycling through attempts
        const pool = poolWith({ agent_timeout_secs: 3, timeout_escalation: 1_000, checkpoint_interval_secs: 2, checkpoint_timeout_secs: 1, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 1 } });
        let item: PoolItem = { ...freshItem(), input: maxPayload };
        let seconds = 0;
        // Act
        for (const next of steps) {
          seconds += 0.7;
          if (next.kind === 'claim') item = claimItem(item, pool, { agentId: 'a', kind: 'agent' }, at(seconds)).state;
          else if (next.kind === 'wake') item = wake(item, pool, seconds).state;
          else if (next.kind === 'collect') item = askForCheckpoint(item, item.attempt, { since: at(seconds), until: at(seconds + 5) }).state;
          else item = call(item, pool, seconds, next.call, Math.max(1, item.attempt - next.staleBy)).state;
        }
        // Assess
        expect(item.history.length).toBeLessThanOrEqual(ITEM_BOUNDS.history);
        for (const entry of item.history) expect((entry.lateResults ?? []).length).toBeLessThanOrEqual(ITEM_BOUNDS.lateResultsPerAttempt);
        expect(item.stats.recentTimeouts.length).toBeLessThanOrEqual(ITEM_BOUNDS.recentTimeouts);
        expect(Buffer.byteLength(JSON.stringify(item), 'utf8')).toBeLessThan(DYNAMO_ITEM_LIMIT * 0.75);
      }),
      { numRuns: 60 },
    );
  });
});
