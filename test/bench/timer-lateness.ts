/**
 * Bench child: timer lateness of the local cloud. Submits JOBS jobs through the submit use case with
 * deadlines spread over SPREAD_MS and records, for each job's wake-up, fired − due where the local
 * cloud starts the fire-job-timer handler, finishedAt − due (when the timeout was decided),
 * acknowledged − due of the write that stored TIMED_OUT, and acknowledged − fired (the handler's
 * own part), with the requests per second the burst sent the region's DynamoDB. Baselines: bare `setTimeout`s armed for the
 * same due times in this process, and the same schedule on an idle event loop before the cloud
 * starts; one raw conditional write per due time on a dynalite of its own before the cloud starts
 * (RawWriter). A raw writer running beside the cloud during the burst was tried as "the raw write
 * at that load": its own dynalite thread and SDK calls on the same two cores slowed the cloud's
 * timeouts 7× (p99 142 ms → 986 ms decided), so it measured itself. argv: data dir. Answers one `result`.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AttributeValue, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo, type LocalDynamo } from '../../shared/adapters/local/dynalite-server.js';
import { NPM_START_THRESHOLDS, toParent } from './bench-child.js';
import { countDynamoRequests, totalOf, type DynamoTally } from './dynamo-counter.js';
import type { TimerLatenessResult } from './messages.js';
import { inParallel } from './stats.js';

const JOBS = 1_000;
const SPREAD_MS = 3_000;
const SUBMIT_CONCURRENCY = 8;
const WARM_UP_JOBS = 40;
const REGION = 'us-east-1';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: timer-lateness.ts <data dir>');
  const { startLocalCloud } = await import('../../shared/local/local-cloud.js');
  const { submitJob } = await import('../../shared/app/submit-job.js');

  const bareIdleMs = await bareTimersOnIdleLoop();
  const rawWriteMs = await RawWriter.start(join(dataDir, 'raw')).then((raw) => raw.onSchedule(Date.now() + 200).finally(() => raw.close()));

  const localMs = new Map<string, number>();
  const cloud = await startLocalCloud({
    port: 0,
    regions: [REGION],
    dataDir,
    ...NPM_START_THRESHOLDS,
    onTimerFired: (timer, firedAt) => {
      if (timer.scope === 'job' && timer.jobId.startsWith('lat-') && !localMs.has(timer.jobId)) localMs.set(timer.jobId, firedAt - timer.dueAt);
    },
  });
  const region = cloud.regions.get(REGION);
  if (!region) throw new Error(`no region ${REGION}`);
  const { deps } = region;
  const tally = countDynamoRequests(region.dynamo.client);
  const dueAtByJob = new Map<string, number>();
  const timedOutAckMs = recordTimedOutWrites(region.dynamo.client, dueAtByJob);
  const submit = (jobId: string, timeoutSeconds: number) =>
    submitJob(deps, { jobId, timeoutSeconds, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: `w-${jobId}` }] });

  // Warm-up (module loading, dynalite's first writes) and the submission rate, to plan a lead time
  // that lets every submission return before its own due time.
  const warmStart = Date.now();
  await inParallel(Array.from({ length: WARM_UP_JOBS }, (_, i) => `warm-${i}`), SUBMIT_CONCURRENCY, (jobId) => submit(jobId, 3_600).then(() => undefined));
  const perJobMs = (Date.now() - warmStart) / WARM_UP_JOBS;
  const firstDueAt = Date.now() + Math.max(1_000, Math.ceil(perJobMs * JOBS * 1.5));

  const bareSameRunMs: number[] = [];

  let armedLate = 0;
  const submitStart = Date.now();
  const jobIds = Array.from({ length: JOBS }, (_, i) => `lat-${String(i).padStart(4, '0')}`);
  await inParallel(jobIds, SUBMIT_CONCURRENCY, async (jobId, i) => {
    const plannedDueAt = firstDueAt + Math.round((i * SPREAD_MS) / JOBS);
    const { view } = await submit(jobId, Math.max(1, plannedDueAt - Date.now()) / 1_000);
    const dueAt = Date.parse(view.deadlineAt);
    dueAtByJob.set(jobId, dueAt);
    if (Date.now() >= dueAt) armedLate++;
    setTimeout(() => bareSameRunMs.push(Date.now() - dueAt), Math.max(0, dueAt - Date.now()));
  });
  const submitSeconds = (Date.now() - submitStart) / 1_000;
  const beforeFiring = snapshot(tally);

  const lastDueAt = Math.max(...dueAtByJob.values());
  const giveUpAt = lastDueAt + 20_000;
  while ((localMs.size < JOBS || bareSameRunMs.length < JOBS) && Date.now() < giveUpAt) await sleep(50);

  // Read back when each job was declared TIMED_OUT (waits for the last handlers to finish writing).
  const timedOutMs: number[] = [];
  let notTimedOut = 0;
  let readBackGets = 0;
  await inParallel(jobIds, SUBMIT_CONCURRENCY, async (jobId) => {
    for (;;) {
      readBackGets++;
      const job = await deps.jobs.getJob(jobId);
      const dueAt = dueAtByJob.get(jobId);
      if (job?.status === 'TIMED_OUT' && job.finishedAt !== undefined && dueAt !== undefined) {
        timedOutMs.push(job.finishedAt - dueAt);
        return;
      }
      if (Date.now() >= giveUpAt) {
        notTimedOut++;
        return;
      }
      await sleep(50);
    }
  });
  const afterFiring = snapshot(tally);
  afterFiring.requests['GetItem'] = (afterFiring.requests['GetItem'] ?? 0) - readBackGets;
  await cloud.close();
  const firingRequests = difference(beforeFiring.requests, afterFiring.requests);
  const handledMs = [...timedOutAckMs].flatMap(([jobId, ackMs]) => {
    const firedMs = localMs.get(jobId);
    return firedMs === undefined ? [] : [ackMs - firedMs];
  });
  const ackedAt = [...timedOutAckMs].map(([jobId, ackMs]) => (dueAtByJob.get(jobId) ?? 0) + ackMs);
  const burstSeconds = (Math.max(...ackedAt) - Math.min(...dueAtByJob.values())) / 1_000;

  const result: TimerLatenessResult = {
    type: 'result',
    jobs: JOBS,
    spreadMs: SPREAD_MS,
    localMs: [...localMs.values()],
    timedOutMs,
    timedOutAckMs: [...timedOutAckMs.values()],
    handledMs,
    bareSameRunMs,
    bareIdleMs,
    rawWriteMs,
    armedLate,
    notTimedOut,
    submitSeconds,
    firingRequests,
    burstRequestsPerSecond: totalOf(firingRequests) / burstSeconds,
    firingItemWrites: difference(beforeFiring.itemWrites, afterFiring.itemWrites),
  };
  await toParent(result);
}

const snapshot = (tally: DynamoTally) => ({ requests: { ...tally.requests }, itemWrites: { ...tally.itemWrites } });

function difference(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(after)) if (value - (before[key] ?? 0) > 0) out[key] = value - (before[key] ?? 0);
  return out;
}

/**
 * For each `lat-` job, when the write that stored it TIMED_OUT was acknowledged, minus its due time:
 * a middleware on the region's DynamoDB client, which every job write goes through.
 */
function recordTimedOutWrites(client: DynamoDBClient, dueAtByJob: ReadonlyMap<string, number>): Map<string, number> {
  const lateness = new Map<string, number>();
  client.middlewareStack.add(
    (next) => async (args) => {
      const answer = await next(args);
      const item = (args.input as { Item?: Record<string, AttributeValue> }).Item;
      const jobId = item?.['pk']?.S?.replace(/^JOB#/, '');
      const dueAt = jobId === undefined ? undefined : dueAtByJob.get(jobId);
      if (jobId && dueAt !== undefined && item?.['sk']?.S === 'JOB' && item['status']?.S === 'TIMED_OUT' && !lateness.has(jobId)) {
        lateness.set(jobId, Date.now() - dueAt);
      }
      return answer;
    },
    { step: 'finalizeRequest', name: 'benchTimedOutAck' },
  );
  return lateness;
}

/**
 * The floor under "TIMED_OUT in DynamoDB": one conditional UpdateItem of its own job-shaped item
 * (created first) per due time, on dynalite as the local cloud runs it (on disk, its own thread);
 * write acknowledged − due.
 */
class RawWriter {
  private constructor(private readonly dynamo: LocalDynamo) {}

  static async start(dir: string): Promise<RawWriter> {
    const dynamo = await startLocalDynamo(dir, REGION, { thread: true });
    await ensureTable(dynamo.client, RAW_TABLE, true);
    await inParallel(
      Array.from({ length: JOBS }, (_, i) => i),
      SUBMIT_CONCURRENCY,
      (i) => dynamo.doc.send(new PutCommand({ TableName: RAW_TABLE, Item: { ...rawKey(i), status: 'RUNNING', version: 1 } })).then(() => undefined),
    );
    return new RawWriter(dynamo);
  }

  /** The whole schedule (JOBS due times over SPREAD_MS from `firstDueAt`), nothing else running. */
  onSchedule(firstDueAt: number): Promise<number[]> {
    return Promise.all(Array.from({ length: JOBS }, (_, i) => this.writeAt(i, firstDueAt + Math.round((i * SPREAD_MS) / JOBS))));
  }

  async writeAt(i: number, dueAt: number): Promise<number> {
    await sleep(Math.max(0, dueAt - Date.now()));
    await this.dynamo.doc.send(
      new UpdateCommand({
        TableName: RAW_TABLE,
        Key: rawKey(i),
        UpdateExpression: 'SET #status = :timedOut, finishedAt = :now, #version = :next',
        ConditionExpression: '#version = :v',
        ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
        ExpressionAttributeValues: { ':timedOut': 'TIMED_OUT', ':now': Date.now(), ':next': 2, ':v': 1 },
      }),
    );
    return Date.now() - dueAt;
  }

  close(): Promise<void> {
    return this.dynamo.close();
  }
}

const RAW_TABLE = 'vigil-raw';
const rawKey = (i: number) => ({ pk: `JOB#raw-${i}`, sk: 'JOB' });

/** The same schedule (JOBS due times over SPREAD_MS) as bare setTimeouts with nothing else running. */
async function bareTimersOnIdleLoop(): Promise<number[]> {
  const firstDueAt = Date.now() + 200;
  const lateness: number[] = [];
  for (let i = 0; i < JOBS; i++) {
    const dueAt = firstDueAt + Math.round((i * SPREAD_MS) / JOBS);
    setTimeout(() => lateness.push(Date.now() - dueAt), dueAt - Date.now());
  }
  while (lateness.length < JOBS) await sleep(50);
  return lateness;
}

// The parent's SIGTERM ends the child normally, so BENCH_CPU_PROF's profile of its main thread is written.
process.once('SIGTERM', () => process.exit(0));
await main();
process.exit(0);
