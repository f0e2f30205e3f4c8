import { PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { ensureTable, TTL_ATTRIBUTE } from '../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo } from '../../shared/adapters/local/dynalite-server.js';
import { summarize, type Summary } from './stats.js';

/**
 * `job`: a small item no index lists, the floor of earlier runs. `workflow`: the item a report
 * writes, as stored (listed by the `byWorker` index, whose entry dynalite rewrites on every write
 * while DynamoDB leaves it alone when no projected attribute changes), with the report's own
 * new-step update and condition.
 */
export type RawItemShape = 'job' | 'workflow';

export interface UpdateRate {
  loops: number;
  /** Dynalite served from a worker thread (as the local cloud runs it) or on the caller's event loop. */
  thread: boolean;
  shape: RawItemShape;
  updates: number;
  perSecond: number;
  latencyMs: Summary;
}

const TABLE = 'vigil-bench';
const WARM_UP_UPDATES = 200;

/**
 * The raw floor under a progress write: dynalite on disk (in its own worker thread as the local
 * cloud runs it, or on this process's event loop), the jobs table with its indexes, and `loops`
 * tight loops of conditional UpdateItem through the SDK, each loop on its own item of `shape`.
 */
export async function dynaliteConditionalUpdateRate(
  dataDir: string,
  loops: number,
  durationMs: number,
  thread: boolean,
  shape: RawItemShape = 'job',
): Promise<UpdateRate> {
  const dynamo = await startLocalDynamo(dataDir, 'us-east-1', { thread });
  try {
    await ensureTable(dynamo.client, TABLE, true);
    const update = shape === 'job' ? await jobItemUpdates(dynamo.doc, loops) : await workflowItemUpdates(dynamo.doc, loops);
    for (let i = 0; i < WARM_UP_UPDATES; i++) await update(i % loops);

    const latencies: number[] = [];
    const start = performance.now();
    const stopAt = start + durationMs;
    await Promise.all(
      Array.from({ length: loops }, async (_, loop) => {
        while (performance.now() < stopAt) {
          const sentAt = performance.now();
          await update(loop);
          latencies.push(performance.now() - sentAt);
        }
      }),
    );
    const seconds = (performance.now() - start) / 1_000;
    return { loops, thread, shape, updates: latencies.length, perSecond: latencies.length / seconds, latencyMs: summarize(latencies) };
  } finally {
    await dynamo.close();
  }
}

async function jobItemUpdates(doc: DynamoDBDocumentClient, loops: number) {
  const versions = Array.from({ length: loops }, () => 0);
  return async (loop: number) => {
    const version = versions[loop] ?? 0;
    await doc.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: `JOB#bench-${loop}`, sk: 'JOB' },
        UpdateExpression: 'SET lastProgressAt = :at, #version = :next',
        ConditionExpression: version === 0 ? 'attribute_not_exists(#version)' : '#version = :v',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':at': Date.now(), ':next': version + 1, ...(version === 0 ? {} : { ':v': version }) },
      }),
    );
    versions[loop] = version + 1;
  };
}

/** The report's new-step write (`recordWorkflowAdvance`) on a workflow item as submission stores it. */
async function workflowItemUpdates(doc: DynamoDBDocumentClient, loops: number) {
  const steps = Array.from({ length: loops }, () => 0);
  await Promise.all(
    steps.map((_, loop) =>
      doc.send(
        new PutCommand({
          TableName: TABLE,
          Item: {
            pk: `JOB#bench-${loop}`,
            sk: 'WF#wf-1',
            jobId: `bench-${loop}`,
            workflowId: 'wf-1',
            workerId: `worker-${loop}`,
            gsiWorkerId: `worker-${loop}`,
            index: 0,
            incarnation: 'bench-incarnation',
            retainUntil: Date.now() + 86_400_000,
            [TTL_ATTRIBUTE]: Math.ceil(Date.now() / 1_000) + 2 * 86_400,
          },
        }),
      ),
    ),
  );
  return async (loop: number) => {
    const step = `step-${++steps[loop]!}`;
    await doc.send(
      new UpdateCommand({
        TableName: TABLE,
        Key: { pk: `JOB#bench-${loop}`, sk: 'WF#wf-1' },
        UpdateExpression: 'SET lastProgressAt = :at, lastHeartbeatAt = :at, #step = :step',
        ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(lastProgressAt) OR lastProgressAt <= :at) AND (attribute_not_exists(#step) OR #step <> :step)',
        ExpressionAttributeNames: { '#step': 'step' },
        ExpressionAttributeValues: { ':at': Date.now(), ':step': step },
      }),
    );
  };
}
