import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { MAX_ITEM_BYTES } from '../../../shared/domain/stored-size.js';
import { seededRandom } from '../../domain/gate/lossy-network-sim.js';
import { startTestDynamo } from '../../support/dynalite.js';
import type { TestDynamo } from '../support/test-manager.js';
import { playScenario, type PlayedScenario } from './item-size-play.js';
import { broadScenario, nearLimitScenario, withBusUp, type Scenario } from './item-size-scenarios.js';
import { dynaliteTakeOver, measure, memoryManager, type MeasuredItem, type SizeWatchedManager } from './size-watched-manager.js';

/**
 * A near-limit run's last write holds the input, the report, a checkpoint and a collection's answer
 * (32 KB each), a split's 128 KB of subtask inputs and their ids, and a full history: more than this.
 * A run below it no longer tests what the property is for.
 */
const NEAR_LIMIT_BYTES = 300 * 1024;

/** Every row within 400 KB by the project's count and by dynalite's, and nothing accepted lost; answers the largest item the last store was sent. */
async function expectBoundedAndNothingLost(played: PlayedScenario, poolId: string): Promise<MeasuredItem> {
  const m = played.endedOn;
  // Every write was measured as it was sent (the largest kept); rows written by updates are measured here.
  for (const row of await m.rowsOf(poolId)) {
    const measured = measure(row);
    expect(measured.bytes).toBeLessThanOrEqual(MAX_ITEM_BYTES);
    expect(measured.dynaliteBytes).toBeLessThanOrEqual(MAX_ITEM_BYTES);
  }
  const largest = m.largest as MeasuredItem;
  expect(largest.bytes).toBeLessThanOrEqual(MAX_ITEM_BYTES);
  expect(largest.dynaliteBytes).toBeLessThanOrEqual(MAX_ITEM_BYTES);
  // Every attempt is in the history or counted, every refused result kept or counted, the last accepted result and checkpoint are the item's
  const items = new Map((await m.deps.pools.getItems(played.itemIds.map((itemId) => ({ poolId, itemId })))).map((item) => [item.itemId, item]));
  for (const itemId of played.itemIds) {
    const item = items.get(itemId) as PoolItem;
    expect(item.history.length + (item.historyDropped ?? 0)).toBe(item.attempt);
    const kept = item.history.reduce((sum, entry) => sum + (entry.lateResults?.length ?? 0) + (entry.lateResultsDropped ?? 0), 0);
    const sent = [...played.refusedResults.entries()].filter(([key]) => key.startsWith(`${itemId}#`)).reduce((sum, [, n]) => sum + n, 0);
    // Entries that left the history took their late results along (counted by historyDropped); the rest are here or counted.
    const sentToKeptEntries = item.history.reduce((sum, entry) => sum + (played.refusedResults.get(`${itemId}#${entry.attempt}`) ?? 0), 0);
    expect(kept).toBe(sentToKeptEntries);
    expect(kept + (item.lateResultsDropped ?? 0)).toBeLessThanOrEqual(sent);
    expect((item.result as { tag?: string } | undefined)?.tag).toBe(played.acceptedResult.get(itemId));
    expect((item.lastCheckpoint?.state as { tag?: string } | undefined)?.tag).toBe(played.acceptedCheckpoint.get(itemId));
  }
  return largest;
}

/** A run takes about a second: a failure's shrinking stops after this, with the smallest counterexample found so far. */
const PROPERTY_TIME_LIMIT_MS = 90_000;

/**
 * A run on the in-memory DynamoDB (each write near the limit also measured by dynalite's count);
 * `finaleOn` may hand the item's end to another store, with the same draws for the claims. Answers the
 * largest item written and how many events outboxes dropped for want of room (`OutboxEventsDropped`).
 */
async function playInMemory(
  s: Scenario,
  poolId: string,
  finaleOn?: (from: SizeWatchedManager, claims: () => number) => Promise<SizeWatchedManager>,
): Promise<{ largest: MeasuredItem; eventsDropped: number }> {
  const claims = seededRandom(s.claimSeed);
  const played = await playScenario(await memoryManager(claims), s, poolId, finaleOn && ((from) => finaleOn(from, claims)));
  const largest = await expectBoundedAndNothingLost(played, poolId);
  return { largest, eventsDropped: played.endedOn.telemetry.count('OutboxEventsDropped') };
}

describe('no sequence of agent and human calls grows a pool item past 400 KB', () => {
  let dynamo: TestDynamo;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());

  it('near the limit (one item, every bounded field at its bound, a split to end): every write succeeds or is refused by the contract, the largest item is past 300 KB and ≤ 400 KB, nothing accepted is lost; dynalite takes the heaviest run’s end byte for byte', async () => {
    // Act, Assess: each run on the in-memory store (shrunk on failure), the heaviest kept
    let run = 0;
    let heaviest: { scenario: Scenario; poolId: string; largest: MeasuredItem } | undefined;
    await fc.assert(
      fc.asyncProperty(nearLimitScenario, async (s) => {
        const poolId = `near-${run++}`;
        const { largest } = await playInMemory(s, poolId);
        expect(largest.bytes).toBeGreaterThan(NEAR_LIMIT_BYTES);
        if (largest.bytes > (heaviest?.largest.bytes ?? 0)) heaviest = { scenario: s, poolId, largest };
      }),
      { numRuns: 3, interruptAfterTimeLimit: PROPERTY_TIME_LIMIT_MS },
    );
    // Act: the heaviest run again, its end (the largest writes) on dynalite through the AWS SDK, where DynamoDB's own limit applies
    const again = heaviest as { scenario: Scenario; poolId: string; largest: MeasuredItem };
    const { largest: onDynalite } = await playInMemory(again.scenario, again.poolId, (from, claims) => dynaliteTakeOver(dynamo, from, again.poolId, claims));
    // Assess: dynalite took the largest write, the in-memory run's byte for byte, by both counts
    expect(onDynalite).toEqual(again.largest);
  }, 150_000);

  it('near the limit with the bus up throughout: no event is ever dropped, each write’s events are published and leave the outbox before the item’s budget is reached', async () => {
    // Act, Assess: each run on the in-memory store (shrunk on failure); the bus-down runs above let the oldest go by design
    let run = 0;
    await fc.assert(
      fc.asyncProperty(nearLimitScenario.map(withBusUp), async (s) => {
        const { largest, eventsDropped } = await playInMemory(s, `near-bus-up-${run++}`);
        expect(largest.bytes).toBeGreaterThan(NEAR_LIMIT_BYTES);
        expect(eventsDropped).toBe(0);
      }),
      { numRuns: 3, interruptAfterTimeLimit: PROPERTY_TIME_LIMIT_MS },
    );
  }, 150_000);

  it('anywhere else (several items, small inputs, any ending): every write succeeds or is refused by the contract, every item stays ≤ 400 KB, nothing accepted is lost', async () => {
    // Act, Assess: each run on the in-memory store, shrunk on failure
    let run = 0;
    await fc.assert(
      fc.asyncProperty(broadScenario, async (s) => {
        await playInMemory(s, `broad-${run++}`);
      }),
      { numRuns: 3, interruptAfterTimeLimit: PROPERTY_TIME_LIMIT_MS },
    );
  }, 150_000);
});
