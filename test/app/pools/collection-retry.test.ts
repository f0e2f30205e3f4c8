import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import type { CheckpointCollection } from '../../../shared/domain/pools/checkpoint-collection.js';
import { CheckpointRequested } from '../../../shared/events/pools/checkpoint-requested.js';
import { handler as getCollection } from '../../../functions/pools/get-collection.js';
import { handler as postCollect } from '../../../functions/pools/start-collection.js';
import { at } from '../../support/fixtures.js';
import { errorOf, invoke } from '../support/http-events.js';
import { useHttpTestManager, type TestManager } from '../support/test-manager.js';
import { claim, cutOffAt, newPool, type Claimed } from './pool-test-support.js';

/**
 * A `POST …/checkpoints/collect` cut off before it answers (a Lambda timeout, a dropped connection)
 * left its collection running under an id the client never learnt, and the client's retry started a
 * second one, asking every agent again. With a `collectionId` of the client's the POST is safe to
 * repeat: the repeat answers the same collection and asks nobody.
 */
describe('a checkpoint collection under a client-chosen collectionId (dynalite)', () => {
  const m = useHttpTestManager();
  const COLLECTION_ID = 'compaction-2026.11:a_1';

  async function runningAgents(): Promise<Claimed[]> {
    // No periodic checkpoint is due for an hour: every CheckpointRequested is the collection's.
    await newPool(m.deps, { agent_timeout_secs: 7_200, checkpoint_interval_secs: 3_600, checkpoint_timeout_secs: 30 }, ['i-1', 'i-2', 'i-3']);
    return [await claim(m.deps, 'agent-1'), await claim(m.deps, 'agent-2'), await claim(m.deps, 'agent-3')];
  }

  const collect = (body?: unknown) =>
    invoke(postCollect, { method: 'POST', route: '/pools/{poolId}/checkpoints/collect', pathParameters: { poolId: 'p' }, ...(body === undefined ? {} : { body }) });
  const requestsPublished = () => m.bus.ofType(CheckpointRequested.detailType).length;
  /** The collections stored in the table (their rows of asked agents have a second '#'). */
  const storedCollections = async () => (await m.snapshot()).filter((row) => /^COLL#[^#]+$/.test(String(row['sk'])));

  it('sent twice with the same collectionId: one collection, each agent asked once, the repeat answers 202 with the same id and changes nothing', async () => {
    // Prepare
    const agents = await runningAgents();
    m.clock.set(at(10));
    const first = await collect({ collectionId: COLLECTION_ID });
    const afterFirst = await m.snapshot();
    // Act
    const repeat = await collect({ collectionId: COLLECTION_ID });
    // Assess
    expect([first.statusCode, repeat.statusCode]).toEqual([202, 202]);
    expect(repeat.body).toEqual({ collectionId: COLLECTION_ID });
    expect(first.body).toEqual({ collectionId: COLLECTION_ID });
    expect(requestsPublished()).toBe(agents.length);
    expect(await m.snapshot()).toEqual(afterFirst);
    const status = await invoke(getCollection, {
      method: 'GET',
      route: '/pools/{poolId}/checkpoints/collect/{collectionId}',
      pathParameters: { poolId: 'p', collectionId: COLLECTION_ID },
    });
    expect(status.statusCode).toBe(200);
    expect(status.body['status']).toBe('collecting');
    expect([...(status.body['missing'] as string[])].sort()).toEqual(agents.map((agent) => agent.agentId));
  });

  it('a repeat after the collection is done answers 202 with its id and starts nothing', async () => {
    // Prepare: the window of 30 s has closed
    await runningAgents();
    await collect({ collectionId: COLLECTION_ID });
    m.clock.set(at(60));
    const published = requestsPublished();
    const done = await m.snapshot();
    // Act
    const repeat = await collect({ collectionId: COLLECTION_ID });
    // Assess
    expect(repeat).toEqual({ statusCode: 202, body: { collectionId: COLLECTION_ID } });
    expect(requestsPublished()).toBe(published);
    expect(await m.snapshot()).toEqual(done);
  });

  it('the first POST cut off mid-chunk: its retry asks nobody, and the sweep asks each agent once', async () => {
    // Prepare: the first POST asks one agent, then its Lambda is gone (its answer never reaches the client)
    const agents = await runningAgents();
    const collectionStart = at(10);
    m.clock.set(collectionStart);
    await startCollection({ ...m.deps, pools: cutOffAt(m.deps.pools, 'saveItem', 1) }, 'p', undefined, { collectionId: COLLECTION_ID });
    const cutOff = await m.snapshot();
    // Act 1: the client retries
    const retry = await collect({ collectionId: COLLECTION_ID });
    const publishedByTheRetry = requestsPublished();
    const afterRetry = await m.snapshot();
    // Act 2: the latest the next minute's sweep comes, just past the grace at which it presumes the wake-up lost
    m.clock.set(collectionStart + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS);
    const swept = await sweepJobTimers(m.deps);
    // Assess
    expect(retry).toEqual({ statusCode: 202, body: { collectionId: COLLECTION_ID } });
    expect(publishedByTheRetry).toBe(0);
    expect(afterRetry).toEqual(cutOff);
    expect(swept.fired).toBe(1);
    const requested = m.bus.ofType(CheckpointRequested.detailType).map((event) => CheckpointRequested.parse(event.detail).agentId);
    expect(requested.sort()).toEqual(agents.map((agent) => agent.agentId));
  });

  it('two POSTs with the same collectionId at once: one collection, each agent asked once', async () => {
    // Prepare: the first POST stores its collection only after its twin has run to its end
    const agents = await runningAgents();
    const { deps, store } = withCompetingPut(m);
    store.beforeNextPut(() => startCollection(m.deps, 'p', undefined, { collectionId: COLLECTION_ID }));
    // Act
    const first = await startCollection(deps, 'p', undefined, { collectionId: COLLECTION_ID });
    // Assess
    expect(first).toEqual({ collectionId: COLLECTION_ID });
    expect(store.competitorsRun).toBe(1);
    expect(await storedCollections()).toHaveLength(1);
    expect(requestsPublished()).toBe(agents.length);
  });

  it('a collectionId that is no id → 400 invalid_request naming collectionId, and nothing is stored or asked', async () => {
    // Prepare
    await runningAgents();
    const before = await m.snapshot();
    // Act
    const answer = await collect({ collectionId: 'not/an id' });
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(errorOf(answer).code).toBe('invalid_request');
    expect(errorOf(answer).details?.map((detail) => detail.field)).toEqual(['collectionId']);
    expect(await m.snapshot()).toEqual(before);
    expect(requestsPublished()).toBe(0);
  });

  it('without a body each POST starts a collection of its own under an id Vigil chooses, as before', async () => {
    // Prepare
    const agents = await runningAgents();
    // Act
    const first = await collect();
    const second = await collect();
    // Assess
    expect([first.statusCode, second.statusCode]).toEqual([202, 202]);
    const ids = [first.body['collectionId'], second.body['collectionId']];
    expect(ids).toEqual([expect.stringMatching(/^[0-9a-f-]{36}$/), expect.stringMatching(/^[0-9a-f-]{36}$/)]);
    expect(ids[0]).not.toBe(ids[1]);
    expect(await storedCollections()).toHaveLength(2);
    expect(requestsPublished()).toBe(2 * agents.length);
  });
});

/** The real pool store with one interleaving point: the next `putCollection` first lets a competitor run to its end. */
class CompetingPutPoolStore extends DynamoPoolStore {
  private competitor: (() => Promise<unknown>) | undefined;
  competitorsRun = 0;

  beforeNextPut(competitor: () => Promise<unknown>): void {
    this.competitor = competitor;
  }

  override async putCollection(collection: CheckpointCollection): Promise<CheckpointCollection> {
    const competitor = this.competitor;
    this.competitor = undefined;
    if (competitor) {
      await competitor();
      this.competitorsRun++;
    }
    return super.putCollection(collection);
  }
}

function withCompetingPut(m: TestManager) {
  const store = new CompetingPutPoolStore(m.doc, m.tableName);
  return { deps: { ...m.deps, pools: store }, store };
}
