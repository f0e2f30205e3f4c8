import { describe, expect, it } from 'vitest';
import { DynamoPoolStore } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { claimPoolItem } from '../../../shared/app/pools/claim-item.js';
import { createPool } from '../../../shared/app/pools/create-pool.js';
import { getPool } from '../../../shared/app/pools/get-pool.js';
import type { PoolSubmission } from '../../../shared/contract/parse-pool-submission.js';
import { PoolConflictError, PoolNotFoundError } from '../../../shared/domain/pools/pool-errors.js';
import type { PoolItem } from '../../../shared/domain/pools/pool-item.js';
import { useTestManager } from '../support/test-manager.js';
import { refusal } from './pool-test-support.js';

/** 300 items tagged with their body: overlapping ids, so a mix of two bodies would show in the inputs. */
const body = (poolId: string, tag: string, count = 300): PoolSubmission => ({
  poolId,
  items: Array.from({ length: count }, (_, i) => ({ itemId: `i-${i}`, input: { tag, i } })),
  config: { agent_timeout_secs: 60 },
});

async function itemsOf(store: DynamoPoolStore, poolId: string, count: number): Promise<PoolItem[]> {
  return store.getItems(Array.from({ length: count + 50 }, (_, i) => ({ poolId, itemId: `i-${i}` })));
}

/** The real store, crashing after writing the first `writeFirst` items of a create. */
class CrashingStore extends DynamoPoolStore {
  constructor(
    doc: ConstructorParameters<typeof DynamoPoolStore>[0],
    tableName: string,
    private readonly writeFirst: number,
  ) {
    super(doc, tableName);
  }
  override async createItems(items: readonly PoolItem[]): Promise<void> {
    await super.createItems(items.slice(0, this.writeFirst));
    throw new Error('crashed midway through the create');
  }
}

describe('POST /pools is atomic in effect and idempotent (on dynalite, real concurrency)', () => {
  const m = useTestManager();

  it('two creates of one poolId with different bodies at once: one wins, the other gets 409 and none of its items are in the pool', async () => {
    for (let round = 0; round < 4; round++) {
      // Prepare: B has more items, so any of its items in the pool would show as an extra id too
      const poolId = `race-${round}`;
      // Act
      const [a, b] = await Promise.allSettled([createPool(m.deps, body(poolId, 'A', 300)), createPool(m.deps, body(poolId, 'B', 340))]);
      // Assess
      const winner = a.status === 'fulfilled' ? 'A' : 'B';
      const loser = winner === 'A' ? b : a;
      expect([a.status, b.status].sort()).toEqual(['fulfilled', 'rejected']);
      expect(loser.status === 'rejected' && loser.reason).toBeInstanceOf(PoolConflictError);
      const items = await itemsOf(m.deps.pools as DynamoPoolStore, poolId, 340);
      expect(items).toHaveLength(winner === 'A' ? 300 : 340);
      expect(new Set(items.map((item) => (item.input as { tag: string }).tag))).toEqual(new Set([winner]));
      expect((await getPool(m.deps, poolId)).items).toBe(winner === 'A' ? 300 : 340);
    }
  });

  it('the same body twice at once: both answered with the same pool; every item written once', async () => {
    // Act
    const [first, second] = await Promise.all([createPool(m.deps, body('twin', 'A')), createPool(m.deps, body('twin', 'A'))]);
    // Assess
    expect(first.view).toEqual(second.view);
    expect(first.view.status).toBe('RUNNING');
    expect(await itemsOf(m.deps.pools as DynamoPoolStore, 'twin', 300)).toHaveLength(300);
  });

  it('a create that crashed halfway is invisible (404, nothing claimable), refuses another body, and is finished by its retry', async () => {
    // Prepare
    const crashing = { ...m.deps, pools: new CrashingStore(m.doc, m.tableName, 120) };
    // Act
    const crash = await refusal(createPool(crashing, body('half', 'A')));
    const whileHalf = { get: await refusal(getPool(m.deps, 'half')), claim: await refusal(claimPoolItem(m.deps, 'half', { agentId: 'a', kind: 'agent' })) };
    const other = await refusal(createPool(m.deps, body('half', 'B')));
    const retried = await createPool(m.deps, body('half', 'A'));
    // Assess
    expect(crash).toMatchObject({ message: 'crashed midway through the create' });
    expect(whileHalf.get).toBeInstanceOf(PoolNotFoundError);
    expect(whileHalf.claim).toBeInstanceOf(PoolNotFoundError);
    expect(other).toBeInstanceOf(PoolConflictError);
    expect(retried).toMatchObject({ created: true, view: { status: 'RUNNING', items: 300 } });
    const items = await itemsOf(m.deps.pools as DynamoPoolStore, 'half', 300);
    expect(items).toHaveLength(300);
    expect(new Set(items.map((item) => (item.input as { tag: string }).tag))).toEqual(new Set(['A']));
    expect((await getPool(m.deps, 'half')).counts).toMatchObject({ available: 300 });
  });
});
