import { describe, expect, it } from 'vitest';
import { AgentStalled } from '../../../../shared/events/pools/agent-stalled.js';
import { CheckpointMissed } from '../../../../shared/events/pools/checkpoint-missed.js';
import { CheckpointRequested } from '../../../../shared/events/pools/checkpoint-requested.js';
import { withoutSupersededCheckpointEvents } from '../../../../shared/domain/pools/superseded-checkpoint-events.js';
import { at } from './pool-fixtures.js';

const fields = (attempt: number) => ({ poolId: 'p', itemId: 'i-1', attempt, agentId: 'agent-a', at: new Date(at(0)).toISOString() });
const requested = (attempt: number, answerBy: number) => CheckpointRequested.build({ ...fields(attempt), answerBy: new Date(at(answerBy)).toISOString() });
const missed = (attempt: number, misses: number) => CheckpointMissed.build({ ...fields(attempt), misses });

describe("an item's outbox without the checkpoint events a later one already says", () => {
  it('drops requests whose window closed and every miss of an attempt but its latest; keeps the rest in order', () => {
    // Prepare
    const stalled = AgentStalled.build({ ...fields(2), misses: 3, terminateBy: new Date(at(40)).toISOString() });
    const events = [requested(1, 5), missed(1, 1), requested(1, 15), missed(1, 2), requested(2, 25), missed(2, 1), missed(2, 2), missed(2, 3), stalled, requested(2, 35)];
    // Act
    const kept = withoutSupersededCheckpointEvents(events, at(30));
    // Assess
    expect(kept).toEqual([missed(1, 2), missed(2, 3), stalled, requested(2, 35)]);
  });

  it('keeps a request whose window is still open', () => {
    expect(withoutSupersededCheckpointEvents([requested(1, 31)], at(30))).toEqual([requested(1, 31)]);
  });
});
