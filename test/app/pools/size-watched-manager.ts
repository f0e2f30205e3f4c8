import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ANSWER_DIRECTLY } from '../../../shared/adapters/aws/document-calls.js';
import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import { DynamoPoolStore, ESCALATIONS_PK } from '../../../shared/adapters/aws/dynamo-pool-store.js';
import { ensureTable } from '../../../shared/adapters/aws/jobs-table.js';
import { poolPk } from '../../../shared/adapters/aws/pool-keys.js';
import { jitteredBackoff } from '../../../shared/app/contention-backoff.js';
import type { ManagerDeps } from '../../../shared/app/manager-deps.js';
import { PageCursors } from '../../../shared/app/page-cursors.js';
import { WorkflowTokens } from '../../../shared/app/workflow-tokens.js';
import { itemSize, MAX_ITEM_BYTES } from '../../../shared/domain/stored-size.js';
import { MemoryDynamo } from '../../../shared/simulation/dynamo/memory-dynamo.js';
import { ValidationException } from '../../../shared/simulation/dynamo/expression-parser.js';
import { instantPauses } from '../../../shared/simulation/world/instant-pauses.js';
import { dynaliteItemSize } from '../../support/dynalite-item-size.js';
import { MANAGER_ID, policy, REGION, T0 } from '../../support/fixtures.js';
import { ManualClock, RecordingBus, RecordingTelemetry, RecordingTimers } from '../support/recording-ports.js';
import { testManager, TOKEN_SECRET, type TestDynamo } from '../support/test-manager.js';

/** An item as stored, measured both ways: by the project's `itemSize` (what its bounds count) and by dynalite. */
export interface MeasuredItem {
  sk: string;
  attempt: unknown;
  bytes: number;
  dynaliteBytes: number;
}

export const measure = (item: Record<string, unknown>, bytes = itemSize(item)): MeasuredItem => ({
  sk: String(item['sk']),
  attempt: item['attempt'],
  bytes,
  dynaliteBytes: dynaliteItemSize(item),
});

/**
 * The project's count is dynalite's, or more where text is not ASCII (UTF-8 bytes, as DynamoDB counts,
 * against dynalite's UTF-16 units): an item this far below 400 KB by the project's count is within it
 * by dynalite's too, and is not measured again (marshalling every write for dynalite's count was most
 * of the in-memory runs' CPU).
 */
const CLOSE_TO_LIMIT_BYTES = MAX_ITEM_BYTES - 8 * 1024;

/**
 * A region manager whose every Put is measured as it is sent: `largest` is the largest item any
 * write asked to store, by either measure, so a write that peaks and is later trimmed is seen too.
 */
export interface SizeWatchedManager {
  deps: ManagerDeps;
  clock: ManualClock;
  timers: RecordingTimers;
  bus: RecordingBus;
  telemetry: RecordingTelemetry;
  /** The largest pool item any write sent so far (by the project's count). */
  largest: MeasuredItem | undefined;
  /** Every row of a pool as stored now. */
  rowsOf(poolId: string): Promise<Record<string, unknown>[]>;
}

/** `refuseOverLimit`: refuse what DynamoDB would, by dynalite's count, where the store itself would not. */
function watcher(refuseOverLimit: boolean): Pick<SizeWatchedManager, 'largest'> & { written(command: unknown, input: object): void } {
  let largestItem: { item: Record<string, unknown>; bytes: number } | undefined;
  let largest: MeasuredItem | undefined;
  return {
    get largest() {
      if (largestItem && largest?.bytes !== largestItem.bytes) largest = measure(largestItem.item, largestItem.bytes);
      return largest;
    },
    written(command, input) {
      const items =
        command === PutCommand
          ? [(input as { Item: Record<string, unknown> }).Item]
          : command === BatchWriteCommand
            ? Object.values((input as { RequestItems: Record<string, Array<{ PutRequest?: { Item: Record<string, unknown> } }>> }).RequestItems)
                .flat()
                .flatMap((request) => (request.PutRequest ? [request.PutRequest.Item] : []))
            : [];
      for (const item of items) {
        // Pool items are the ones that grow; other rows (receipts, reservations, the pool) are measured at the end.
        if (!String(item['sk']).startsWith('ITEM#')) continue;
        const bytes = itemSize(item);
        // What DynamoDB refuses, whatever the project's count says: the in-memory store refuses by that count only.
        if (refuseOverLimit && bytes > CLOSE_TO_LIMIT_BYTES) {
          const dynaliteBytes = measure(item, bytes).dynaliteBytes;
          if (dynaliteBytes > MAX_ITEM_BYTES) throw new ValidationException(`Item size has exceeded the maximum allowed size (dynalite counts ${dynaliteBytes} B)`);
        }
        if (!largestItem || bytes > largestItem.bytes) largestItem = { item, bytes };
      }
    },
  };
}

async function allPages(doc: DynamoDBDocumentClient, tableName: string, key: { pk: string; skPrefix: string }): Promise<Record<string, unknown>[]> {
  const rows: Record<string, unknown>[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(
      new QueryCommand({
        TableName: tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': key.pk, ':prefix': key.skPrefix },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    rows.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return rows;
}

/** A pool's rows: its partition (the pool, its items, subtask reservations, collections, claim receipts) and its escalation pointers. */
const rowsOf = async (doc: DynamoDBDocumentClient, tableName: string, poolId: string) => [
  ...(await allPages(doc, tableName, { pk: poolPk(poolId), skPrefix: '' })),
  ...(await allPages(doc, tableName, { pk: ESCALATIONS_PK, skPrefix: `${poolId}~` })),
];

/**
 * Over dynalite through the real AWS SDK: DynamoDB's own refusal of a write past 400 KB. It takes over
 * from `from` (another manager, its pool `poolId`): the pool's rows are copied into a fresh table, and the
 * clock, the timers and the bus are `from`'s, so a scenario goes on where it was.
 */
export async function dynaliteTakeOver(dynamo: TestDynamo, from: SizeWatchedManager, poolId: string, random: () => number): Promise<SizeWatchedManager> {
  const m = await testManager(dynamo);
  for (const row of await from.rowsOf(poolId)) await dynamo.doc.send(new PutCommand({ TableName: m.tableName, Item: row }));
  const watched = watcher(false);
  const send = m.doc.send.bind(m.doc) as (command: { constructor: unknown; input: object }) => Promise<unknown>;
  m.doc.send = ((command: { constructor: unknown; input: object }) => {
    watched.written(command.constructor, command.input);
    return send(command);
  }) as unknown as typeof m.doc.send;
  const { clock, timers, bus, telemetry } = from;
  return Object.assign(watched, {
    deps: { ...m.deps, pools: new DynamoPoolStore(m.doc, m.tableName, random), clock, timers, bus, telemetry },
    clock,
    timers,
    bus,
    telemetry,
    rowsOf: (id: string) => rowsOf(dynamo.doc, m.tableName, id),
  });
}

/**
 * Over the simulator's in-memory DynamoDB (checked against dynalite by `test/sim/memory-dynamo.test.ts`):
 * the same adapters, a fraction of the CPU. It refuses an item past 400 KB by the project's count;
 * the watcher refuses one past it by dynalite's.
 */
export async function memoryManager(random: () => number): Promise<SizeWatchedManager> {
  const memory = new MemoryDynamo();
  const tableName = `vigil-size-${randomUUID().slice(0, 8)}`;
  await ensureTable(memory.client, tableName, true);
  const watched = watcher(true);
  const doc = {
    send: (command: { constructor: unknown; input: object }) => {
      watched.written(command.constructor, command.input);
      return memory.send(command);
    },
    [ANSWER_DIRECTLY]: (command: new (input: never) => unknown, input: object) => {
      watched.written(command, input);
      return memory[ANSWER_DIRECTLY](command, input);
    },
  } as unknown as DynamoDBDocumentClient;
  const clock = new ManualClock(T0);
  const timers = new RecordingTimers();
  const bus = new RecordingBus();
  const telemetry = new RecordingTelemetry();
  const deps: ManagerDeps = {
    region: REGION,
    managerId: MANAGER_ID,
    jobs: new DynamoJobStore(doc, tableName),
    pools: new DynamoPoolStore(doc, tableName, random),
    timers,
    bus,
    clock,
    policy: policy(),
    tokens: new WorkflowTokens(TOKEN_SECRET),
    cursors: new PageCursors(TOKEN_SECRET),
    telemetry,
    backoff: jitteredBackoff,
    stopwatch: instantPauses(),
  };
  return Object.assign(watched, { deps, clock, timers, bus, telemetry, rowsOf: (poolId: string) => rowsOf(memory.doc, tableName, poolId) });
}
