import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo } from '../../shared/adapters/local/dynalite-server.js';
import { summarize, type Summary } from './stats.js';

export interface UpdateRate {
  loops: number;
  /** Dynalite served from a worker thread (as the local cloud runs it) or on the caller's event loop. */
  thread: boolean;
  updates: number;
  perSecond: number;
  latencyMs: Summary;
}

const TABLE = 'vigil-bench';
const WARM_UP_UPDATES = 200;

/**
 * The raw floor under a progress write: dynalite on disk (in its own worker thread as the local
 * cloud runs it, or on this process's event loop), the jobs table with its indexes, and `loops`
 * tight loops of conditional UpdateItem through the SDK, each loop on its own job-shaped item
 * (`version = :v` guards the write).
 */
export async function dynaliteConditionalUpdateRate(dataDir: string, loops: number, durationMs: number, thread: boolean): Promise<UpdateRate> {
  const dynamo = await startLocalDynamo(dataDir, 'us-east-1', { thread });
  try {
    await ensureTable(dynamo.client, TABLE, true);
    const versions = Array.from({ length: loops }, () => 0);
    const update = async (loop: number) => {
      const version = versions[loop] ?? 0;
      await dynamo.doc.send(
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
    return { loops, thread, updates: latencies.length, perSecond: latencies.length / seconds, latencyMs: summarize(latencies) };
  } finally {
    await dynamo.close();
  }
}
