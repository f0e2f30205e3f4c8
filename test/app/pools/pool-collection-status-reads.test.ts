import { describe, expect, it } from 'vitest';
import { collectionStatus, STATUS_PAGE_AGENTS, startCollection } from '../../../shared/app/pools/collect-checkpoints.js';
import { newPoolItem, type PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { at } from '../../support/fixtures.js';
import { useTestManager, type DynamoCall } from '../support/test-manager.js';
import { allPages } from './all-pages.js';
import { newPool } from './pool-test-support.js';

/** Past one page's agents. */
const AGENTS = STATUS_PAGE_AGENTS + 10;

/** Pool items read by key (BatchGetItem keys, GetItem) among `calls`. */
const itemsReadByKey = (calls: readonly DynamoCall[]): number =>
  calls.reduce((sum, call) => {
    if (call.command === 'GetCommand') return sum + (String(call.input.Key?.sk ?? '').startsWith('ITEM#') ? 1 : 0);
    if (call.command !== 'BatchGetCommand') return sum;
    const requests = Object.values((call.input['RequestItems'] ?? {}) as Record<string, { Keys: Array<{ sk: string }> }>);
    return sum + requests.flatMap((request) => request.Keys).filter((key) => key.sk.startsWith('ITEM#')).length;
  }, 0);

/** An item some agent holds, as a claim leaves it. */
function running(itemId: string, index: number): PoolItem {
  const agentId = `agent-${index}`;
  return {
    ...newPoolItem('p', itemId, { itemId }),
    state: 'running',
    attempt: 1,
    run: { attempt: 1, agentId, kind: 'agent', startedAt: at(0), agentDeadlineAt: at(3_600), agentLimitSeconds: 3_600, nextCheckpointAt: at(3_000), checkpointMisses: 0 },
    history: [{ attempt: 1, agentId, startedAt: at(0) }],
  };
}

// Review finding: a status page listed asked agents until its answer reached 2.5 MB of JSON, reading
// each one's item. An agent that has not answered is a few bytes of answer, so a page over 10,000 silent
// agents read 10,000 items (up to ~110 KB each: ~1 GB, far past API Gateway's 29 s) and never answered.
describe('pools on dynalite: the status of a collection over many silent agents', () => {
  const m = useTestManager();

  it(`reads at most ${STATUS_PAGE_AGENTS} asked agents' items per page, and the pages together name every agent once, in order`, async () => {
    // Prepare: running agents asked in one chunk; none answers
    await newPool(m.deps, { agent_timeout_secs: 3_600, checkpoint_interval_secs: 3_000 }, ['unclaimed']);
    const ids = Array.from({ length: AGENTS }, (_, i) => `i-${String(i).padStart(4, '0')}`);
    await m.deps.pools.createItems(ids.map(running));
    const { collectionId } = await startCollection({ ...m.deps, passChunk: AGENTS + 1 }, 'p');
    m.clock.set(at(31));
    m.calls.length = 0;
    // Act
    const first = await collectionStatus(m.deps, 'p', collectionId);
    const firstReads = itemsReadByKey(m.calls);
    const pages = await allPages((cursor) => collectionStatus(m.deps, 'p', collectionId, undefined, cursor));
    // Assess
    expect(firstReads).toBeLessThanOrEqual(STATUS_PAGE_AGENTS);
    expect(first.missing).toHaveLength(STATUS_PAGE_AGENTS);
    expect(pages.flatMap((page) => page.missing)).toEqual(ids.map((_, i) => `agent-${i}`));
    expect(pages.every((page) => page.status === 'done' && page.collected.length === 0)).toBe(true);
  });
});
