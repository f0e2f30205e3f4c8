/**
 * Bench: what one pool claim costs as the pool grows (agent fleets, gap "claims scale"). In-memory
 * dynalite, the real store and claim use case. Each pool has its first N − 100 items done and the
 * last 100 available: a pool near its end, where reading the pool's items for candidates (the claim
 * before the `available` index, and still the path on a table without it) reads nearly all of it.
 * Same run, same data: the table with the index against one without.
 */
import { BatchWriteCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoPoolStore, newItemRecord } from '../../shared/adapters/aws/dynamo-pool-store.js';
import { claimPoolItem } from '../../shared/app/pools/claim-item.js';
import type { ManagerDeps } from '../../shared/app/manager-deps.js';
import { WorkflowTokens } from '../../shared/app/workflow-tokens.js';
import { resolvePoolConfig } from '../../shared/domain/pools/pool-config.js';
import { newPoolItem } from '../../shared/domain/pools/pool-item.js';
import { ManualClock, RecordingBus, RecordingTelemetry, RecordingTimers } from '../app/support/recording-ports.js';
import { startTestDynamo } from '../support/dynalite.js';
import { MANAGER_ID, policy, REGION, T0 } from '../support/fixtures.js';
import { inParallel, summarize } from './stats.js';
import { fmtMs, formatTable } from './table.js';

const AVAILABLE_AT_END = 100;
const SIZES = [1_000, 100_000] as const;
/** Claims measured per pool; fewer on the path that reads the whole pool each time. */
const CLAIMS = { indexed: 30, whole: 5 } as const;

interface ClaimCost {
  items: number;
  indexed: boolean;
  msPerClaim: number[];
  itemsReadPerClaim: number;
}

type TestDynamo = Awaited<ReturnType<typeof startTestDynamo>>;

/** A document client that adds up `ScannedCount` of every query: the items DynamoDB read (and bills). */
function countingDoc(dynamo: TestDynamo): { doc: DynamoDBDocumentClient; scanned: () => number } {
  const doc = DynamoDBDocumentClient.from(dynamo.client, { marshallOptions: { removeUndefinedValues: true } });
  let scanned = 0;
  const send = doc.send.bind(doc) as (command: unknown) => Promise<{ ScannedCount?: number }>;
  doc.send = (async (command: unknown) => {
    const output = await send(command);
    scanned += output?.ScannedCount ?? 0;
    return output;
  }) as typeof doc.send;
  return { doc, scanned: () => scanned };
}

async function seedPool(doc: DynamoDBDocumentClient, tableName: string, store: DynamoPoolStore, poolId: string, items: number): Promise<void> {
  await store.putNewPool({ poolId, status: 'RUNNING', config: resolvePoolConfig({}), itemCount: items, createdAt: T0, submissionHash: 'bench', version: 0 });
  const records = Array.from({ length: items }, (_, i) => {
    const item = newPoolItem(poolId, `item-${String(i).padStart(6, '0')}`, { i });
    return newItemRecord(i < items - AVAILABLE_AT_END ? { ...item, state: 'succeeded', attempt: 1 } : item);
  });
  const batches = Array.from({ length: Math.ceil(records.length / 25) }, (_, b) => records.slice(b * 25, b * 25 + 25));
  await inParallel(batches, 8, async (batch) => {
    let requests: Record<string, unknown>[] = batch.map((Item) => ({ PutRequest: { Item } }));
    for (let tries = 0; requests.length > 0 && tries < 20; tries++) {
      const { UnprocessedItems } = await doc.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests as never } }));
      requests = (UnprocessedItems?.[tableName] ?? []) as Record<string, unknown>[];
    }
  });
}

async function measure(dynamo: TestDynamo, items: number, indexed: boolean): Promise<ClaimCost> {
  const tableName = await dynamo.table(indexed);
  const { doc, scanned } = countingDoc(dynamo);
  const pools = new DynamoPoolStore(doc, tableName);
  await seedPool(doc, tableName, pools, 'bench', items);
  const deps = {
    region: REGION,
    managerId: MANAGER_ID,
    pools,
    timers: new RecordingTimers(),
    bus: new RecordingBus(),
    clock: new ManualClock(T0),
    policy: policy(),
    tokens: new WorkflowTokens(Buffer.from('bench')),
    telemetry: new RecordingTelemetry(),
  } as unknown as ManagerDeps;
  const claims = indexed ? CLAIMS.indexed : CLAIMS.whole;
  const msPerClaim: number[] = [];
  const before = scanned();
  for (let i = 0; i < claims; i++) {
    const started = performance.now();
    const claimed = await claimPoolItem(deps, 'bench', { agentId: `agent-${i}`, kind: 'agent' });
    msPerClaim.push(performance.now() - started);
    if (!claimed) throw new Error(`claim ${i} found nothing in a pool of ${items}`);
  }
  return { items, indexed, msPerClaim, itemsReadPerClaim: (scanned() - before) / claims };
}

export async function benchClaimCost(): Promise<string> {
  const dynamo = await startTestDynamo();
  try {
    const results: ClaimCost[] = [];
    for (const items of SIZES) for (const indexed of [true, false]) results.push(await measure(dynamo, items, indexed));
    const rows = results.map((r) => {
      const s = summarize(r.msPerClaim);
      return [
        `${r.items.toLocaleString('en-US')} items, ${r.indexed ? '`available` index' : 'no index (reads the pool)'}`,
        String(s.count),
        fmtMs(s.p50),
        fmtMs(s.max),
        Math.round(r.itemsReadPerClaim).toLocaleString('en-US'),
      ];
    });
    return formatTable(['claim cost (last 100 items available)', 'claims', 'p50', 'max', 'items read per claim'], rows);
  } finally {
    await dynamo.close();
  }
}
