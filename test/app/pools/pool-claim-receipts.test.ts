import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { firePoolTimer } from '../../../shared/app/pools/fire-pool-timer.js';
import { itemTimerId, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { ClaimEndedError, ClaimInFlightError } from '../../../shared/domain/pools/pool-errors.js';
import { loseNextAnswer } from '../support/lose-write-answer.js';
import { useTestManager } from '../support/test-manager.js';
import { newPool, refusal, send } from './pool-test-support.js';

const agent = (agentId: string, claimId: string) => ({ agentId, kind: 'agent' as const, claimId });

/** The real store, crashing (throwing) when a claim is about to take the item its receipt names. */
class CrashBeforeTakingItem extends DynamoPoolStore {
  override async saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem> {
    if (item.state === 'running') throw new Error('crashed before taking the item');
    return super.saveItem(item, expectedVersion);
  }
}

/** The real store, crashing right after a claim took its item (the write landed; nothing after it ran). */
class CrashAfterTakingItem extends DynamoPoolStore {
  override async saveItem(item: PoolItem, expectedVersion: number): Promise<PoolItem> {
    const saved = await super.saveItem(item, expectedVersion);
    if (item.state === 'running') throw new Error('crashed after taking the item');
    return saved;
  }
}

async function runningItems(m: { deps: { pools: { itemsInState(poolId: string, state: 'running', limit: number): Promise<{ items: PoolItem[] }> } } }) {
  return (await m.deps.pools.itemsInState('p', 'running', 100)).items;
}

// Review finding: a claim whose answer was lost (a 504, a client timeout) could not be repeated
// safely. A repeat took a second item, and the first stayed running, unworked, until its deadline.
describe('a claim with a claimId is idempotent', () => {
  const m = useTestManager();

  it('the same claimId sent again gets the same attempt and token; no second item is taken', async () => {
    // Prepare
    await newPool(m.deps, {}, ['a', 'b', 'c']);
    // Act
    const first = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    const repeat = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess
    expect(repeat).toEqual(first);
    expect((await runningItems(m)).map((item) => item.itemId)).toEqual([first?.itemId]);
  });

  it('a claimId is the agent\'s own: another agent using the same id claims an item of its own', async () => {
    // Prepare
    await newPool(m.deps, {}, ['a', 'b']);
    // Act
    const mine = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    const theirs = await claimPoolItem(m.deps, 'p', agent('agent-b', 'c-1'));
    // Assess
    expect(theirs?.itemId).not.toBe(mine?.itemId);
  });

  it('a repeat after the attempt ended is refused with stale_attempt and takes nothing', async () => {
    // Prepare: the claim's attempt finishes
    await newPool(m.deps, {}, ['a', 'b']);
    const first = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    if (!first) throw new Error('nothing claimed');
    await send(m.deps, { ...first, agentId: 'agent-a' }, { type: 'complete', outcome: 'succeeded' });
    // Act
    const refused = await refusal(claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1')));
    // Assess
    expect(refused).toBeInstanceOf(ClaimEndedError);
    expect(await runningItems(m)).toEqual([]);
  });

  // A review note: the repeat of a claim whose attempt timed out while its answer was lost got a
  // normal claim view, with a deadline already past and nothing telling the agent to stop.
  it('a repeat after the attempt timed out (terminating, the pool running) is refused with stale_attempt', async () => {
    // Prepare: the attempt's agent deadline passes; its wake-up starts terminating it
    await newPool(m.deps, { agent_timeout_secs: 10, timeout_config: { cleanup_grace_period_secs: 60 } }, ['a', 'b']);
    const first = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    if (!first) throw new Error('nothing claimed');
    m.clock.set(at(10));
    await firePoolTimer(m.deps, { scope: 'pool', jobId: itemTimerId('p', first.itemId), fenceToken: first.attempt, dueAt: at(10) });
    expect((await m.deps.pools.getItem('p', first.itemId))?.run?.terminating).toBeDefined();
    // Act
    const refused = await refusal(claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1')));
    // Assess
    expect(refused).toBeInstanceOf(ClaimEndedError);
  });

  it('nothing available: 204, and idle polling writes no receipt', async () => {
    // Prepare: the one item is held by another agent
    await newPool(m.deps, {}, ['a']);
    await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    const before = m.calls.length;
    // Act
    const empty = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess
    expect(empty).toBeUndefined();
    const receiptWrites = m.calls.slice(before).filter((call) => call.command !== 'GetCommand' && call.command !== 'QueryCommand');
    expect(receiptWrites).toEqual([]);
  });

  it('a repeat while the first is in flight is told busy; a reservation abandoned by a crash is retaken after 30 s', async () => {
    // Prepare: the first claim crashes after reserving its receipt, before taking the item it names
    await newPool(m.deps, {}, ['a', 'b']);
    const crashing = { ...m.deps, pools: new CrashBeforeTakingItem(m.doc, m.tableName) };
    await refusal(claimPoolItem(crashing, 'p', agent('agent-a', 'c-1')));
    // Act
    const inFlight = await refusal(claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1')));
    m.clock.set(m.clock.now() + 30_000);
    const retaken = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    const again = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess: the retry gets one item, once; nothing else runs
    expect(inFlight).toBeInstanceOf(ClaimInFlightError);
    expect(retaken).toBeDefined();
    expect(again).toEqual(retaken);
    expect((await runningItems(m)).map((item) => item.itemId)).toEqual([retaken?.itemId]);
  });

  it('a claim that crashed right after taking its item is answered that attempt on its repeat, at once: no item is stranded', async () => {
    // Prepare: the write that took the item landed; the call never answered
    await newPool(m.deps, {}, ['a', 'b']);
    const crashing = { ...m.deps, pools: new CrashAfterTakingItem(m.doc, m.tableName) };
    await refusal(claimPoolItem(crashing, 'p', agent('agent-a', 'c-1')));
    // Act
    const repeat = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess
    const running = await runningItems(m);
    expect(running.map((item) => [item.itemId, item.attempt])).toEqual([[repeat?.itemId, repeat?.attempt]]);
  });

  it('a receipt whose item another agent took is not that agent\'s attempt: the repeat is told busy, then claims another item', async () => {
    // Prepare: the claim reserved item a and crashed; agent-b then took a
    await newPool(m.deps, {}, ['a']);
    const crashing = { ...m.deps, pools: new CrashBeforeTakingItem(m.doc, m.tableName) };
    await refusal(claimPoolItem(crashing, 'p', agent('agent-a', 'c-1')));
    const taken = await claimPoolItem(m.deps, 'p', { agentId: 'agent-b', kind: 'agent' });
    // Act
    const inFlight = await refusal(claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1')));
    m.clock.set(m.clock.now() + 30_000);
    const afterAbandoned = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess: agent-b's attempt is never handed to agent-a; nothing else is available
    expect(taken?.itemId).toBe('a');
    expect(inFlight).toBeInstanceOf(ClaimInFlightError);
    expect(afterAbandoned).toBeUndefined();
  });

  // Audit: a claimId is the agent's own, but a repeat looked its attempt up by claimId alone, so an
  // agent whose claim crashed was handed the attempt (and token) another agent took with the same id.
  it('a receipt whose item another agent took with the same claimId is not this agent\'s attempt: never handed over, nor called ended', async () => {
    // Prepare: agent-a's claim reserved item a and crashed; agent-b, counting its claims alike, took a as c-1 too
    await newPool(m.deps, {}, ['a']);
    const crashing = { ...m.deps, pools: new CrashBeforeTakingItem(m.doc, m.tableName) };
    await refusal(claimPoolItem(crashing, 'p', agent('agent-a', 'c-1')));
    const taken = await claimPoolItem(m.deps, 'p', agent('agent-b', 'c-1'));
    // Act
    const inFlight = await refusal(claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1')));
    m.clock.set(m.clock.now() + 30_000);
    const afterAbandoned = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    if (!taken) throw new Error('nothing claimed');
    await send(m.deps, { ...taken, agentId: 'agent-b' }, { type: 'complete', outcome: 'succeeded' });
    const afterEnded = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess: agent-b's attempt is never handed to agent-a, and its end is not agent-a's claim's
    expect(taken.itemId).toBe('a');
    expect(inFlight).toBeInstanceOf(ClaimInFlightError);
    expect(afterAbandoned).toBeUndefined();
    expect(afterEnded).toBeUndefined();
  });

  // AWS adapters review: the receipt's write landed but its answer was lost; the SDK's repeat failed its
  // own condition and the claim answered 503 busy to itself, locking its claimId out for 30 s.
  it('a claim whose receipt write answer was lost (the SDK repeats it) still takes its item; its repeat answers the same attempt', async () => {
    // Prepare
    await newPool(m.deps, {}, ['a', 'b']);
    const undo = loseNextAnswer(m.doc, 'PutItemCommand', 'CLAIM#agent-a#c-1');
    // Act
    const first = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1')).finally(undo);
    const repeat = await claimPoolItem(m.deps, 'p', agent('agent-a', 'c-1'));
    // Assess
    expect(repeat).toEqual(first);
    expect(await runningItems(m)).toHaveLength(1);
  });

  it('property: any interleaving of repeated claims leaves one attempt per claimId, every answer for it the same', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('c-1', 'c-2', 'c-3'), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 1, max: 4 }),
        async (claimIds, concurrency) => {
          // Prepare: a fresh pool per run, with items enough for every claim
          const poolId = `p-${Math.random().toString(36).slice(2)}`;
          await newPool(m.deps, {}, ['a', 'b', 'c', 'd'], poolId);
          // Act: the claims go out `concurrency` at a time; one told busy retries, as the SDK does
          const answers = new Map<string, Set<string>>();
          const send = async (claimId: string) => {
            for (;;) {
              try {
                const view = await claimPoolItem(m.deps, poolId, agent('agent-a', claimId));
                if (!view) throw new Error('nothing left to claim');
                answers.set(claimId, (answers.get(claimId) ?? new Set()).add(`${view.itemId}#${view.attempt}#${view.token}`));
                return;
              } catch (error) {
                if (!(error instanceof ClaimInFlightError)) throw error;
              }
            }
          };
          for (let start = 0; start < claimIds.length; start += concurrency) await Promise.all(claimIds.slice(start, start + concurrency).map(send));
          // Assess
          const running = (await m.deps.pools.itemsInState(poolId, 'running', 100)).items;
          expect(running.length).toBe(new Set(claimIds).size);
          for (const seen of answers.values()) expect(seen.size).toBe(1);
        },
      ),
      { numRuns: 25 },
    );
    // 25 pools on dynalite, claims racing: over 10 s on two busy cores.
  }, 120_000);
});
