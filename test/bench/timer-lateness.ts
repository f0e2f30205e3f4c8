/**
 * Bench child: timer lateness of the local cloud. Submits JOBS jobs through the submit use case with
 * deadlines spread over SPREAD_MS and records, for each job's wake-up, fired − due where the local
 * cloud starts the fire-job-timer handler, and finishedAt − due once the job is TIMED_OUT. Bare
 * `setTimeout`s armed for the same due times in this process are the baseline, plus the same
 * schedule on an idle event loop before the cloud starts, and one raw conditional write per due
 * time on a dynalite of its own (rawWritesOnSchedule). argv: data dir. Answers one `result`.
 */
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import { startLocalDynamo } from '../../shared/adapters/local/dynalite-server.js';
import { NPM_START_THRESHOLDS, toParent } from './bench-child.js';
import { countDynamoRequests, type DynamoTally } from './dynamo-counter.js';
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
  const rawWriteMs = await rawWritesOnSchedule(join(dataDir, 'raw'));

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
  const submit = (jobId: string, timeoutSeconds: number) =>
    submitJob(deps, { jobId, timeoutSeconds, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: `w-${jobId}` }] });

  // Warm-up (module loading, dynalite's first writes) and the submission rate, to plan a lead time
  // that lets every submission return before its own due time.
  const warmStart = Date.now();
  await inParallel(Array.from({ length: WARM_UP_JOBS }, (_, i) => `warm-${i}`), SUBMIT_CONCURRENCY, (jobId) => submit(jobId, 3_600).then(() => undefined));
  const perJobMs = (Date.now() - warmStart) / WARM_UP_JOBS;
  const firstDueAt = Date.now() + Math.max(1_000, Math.ceil(perJobMs * JOBS * 1.5));

  const dueAtByJob = new Map<string, number>();
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

  const result: TimerLatenessResult = {
    type: 'result',
    jobs: JOBS,
    spreadMs: SPREAD_MS,
    localMs: [...localMs.values()],
    timedOutMs,
    bareSameRunMs,
    bareIdleMs,
    rawWriteMs,
    armedLate,
    notTimedOut,
    submitSeconds,
    firingRequests: difference(beforeFiring.requests, afterFiring.requests),
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
 * The same schedule, each due time a conditional UpdateItem of its own job-shaped item (created
 * first) on dynalite as the local cloud runs it: the floor under "TIMED_OUT in DynamoDB".
 */
async function rawWritesOnSchedule(dir: string): Promise<number[]> {
  const dynamo = await startLocalDynamo(dir, REGION, { thread: true });
  try {
    await ensureTable(dynamo.client, 'vigil-raw', true);
    const key = (i: number) => ({ pk: `JOB#raw-${i}`, sk: 'JOB' });
    await inParallel(
      Array.from({ length: JOBS }, (_, i) => i),
      SUBMIT_CONCURRENCY,
      (i) => dynamo.doc.send(new PutCommand({ TableName: 'vigil-raw', Item: { ...key(i), status: 'RUNNING', version: 1 } })).then(() => undefined),
    );
    const firstDueAt = Date.now() + 200;
    const lateness: number[] = [];
    const writes = Array.from({ length: JOBS }, (_, i) => {
      const dueAt = firstDueAt + Math.round((i * SPREAD_MS) / JOBS);
      return sleep(dueAt - Date.now()).then(async () => {
        await dynamo.doc.send(
          new UpdateCommand({
            TableName: 'vigil-raw',
            Key: key(i),
            UpdateExpression: 'SET #status = :timedOut, finishedAt = :now, #version = :next',
            ConditionExpression: '#version = :v',
            ExpressionAttributeNames: { '#status': 'status', '#version': 'version' },
            ExpressionAttributeValues: { ':timedOut': 'TIMED_OUT', ':now': Date.now(), ':next': 2, ':v': 1 },
          }),
        );
        lateness.push(Date.now() - dueAt);
      });
    });
    await Promise.all(writes);
    return lateness;
  } finally {
    await dynamo.close();
  }
}

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

await main();
process.exit(0);
