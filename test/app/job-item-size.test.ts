import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { decodeGrants, encodeGrants } from '../../shared/domain/extension-ledger.js';
import { recordWorkerExtension } from '../../shared/domain/worker-extensions.js';
import { at, context } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager, type TestManager } from './support/test-manager.js';

const WORKFLOWS = 10_000;
/** Budget epochs below 36^6 (2.2 billion resets of one worker) encode in six characters. */
const LARGEST_EPOCH = 36 ** 6 - 1;
const DYNAMO_ITEM_LIMIT = 400 * 1024;

/** 128-character ids, distinct in their last characters. */
const longId = (prefix: string, i: number) => `${prefix}-${String(i).padStart(8, '0')}`.padStart(128, 'x');

/**
 * The largest job Vigil accepts: 10,000 workflows, each on its own worker with a 128-character id,
 * and every worker but the last holding a full budget's grant of the largest epoch. Those grants are
 * applied through the domain (10,000 requests through dynalite would take minutes) and written through
 * the store; the last worker's comes through the real use case.
 */
async function largestJobWithEveryWorkerExtended(m: TestManager) {
  const workflows = Array.from({ length: WORKFLOWS }, (_, i) => ({ workflowId: longId('wf', i), workerId: longId('worker', i) }));
  const submitted = await submit(m, { jobId: 'job-big', timeoutSeconds: 600, stuckThresholdSeconds: 3_600, workflows });
  const job = await m.getJob('job-big');
  const grants = new Map(Array.from({ length: WORKFLOWS - 2 }, (_, i) => [i, { workerIndex: i, epoch: LARGEST_EPOCH, count: 5, seconds: 58.125 }]));
  // The last but one through the domain, so the stored aggregates are the domain's own.
  const seeded = { ...job, tracking: { ...job.tracking, workerGrants: encodeGrants(grants) } };
  const grant = { workerIndex: WORKFLOWS - 2, epoch: LARGEST_EPOCH, count: 5, seconds: 58.125 };
  await m.jobs.saveJob(recordWorkerExtension(seeded, [WORKFLOWS - 2], grant, false, context(at(1))).state, job.version);
  return { workflows, submitted };
}

async function storedItemBytes(m: TestManager, jobId: string): Promise<number> {
  const { Item } = await m.dynamo.client.send(new GetItemCommand({ TableName: m.tableName, Key: { pk: { S: `JOB#${jobId}` }, sk: { S: 'JOB' } } }));
  return Buffer.byteLength(JSON.stringify(Item));
}

describe('no job item grows past DynamoDB\'s 400 KB limit (dynalite enforces it)', () => {
  const m = useTestManager();

  it('10,000 workflows on 10,000 workers with 128-character ids, every one extended: the item fits with room, and extension, cancel and timeout still write', { timeout: 120_000 }, async () => {
    // Prepare
    const { workflows, submitted } = await largestJobWithEveryWorkerExtended(m);
    const bytes = await storedItemBytes(m, 'job-big');
    // Act: the last worker's real request; the timer at 600 s (not due: the deadline is far later),
    // which finds that worker silent since 2 s (failed) and retires its grant; then a cancel. Each
    // one is a whole-item write of the full job.
    const last = workflows[WORKFLOWS - 1];
    if (!last) throw new Error('no workflows');
    m.clock.set(at(2));
    const answer = await requestExtension(m.deps, { workerId: last.workerId, token: tokenOf(submitted, last.workflowId), currentProgress: 0.5 });
    m.clock.set(at(600));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-big'));
    const cancelled = await cancelJob(m.deps, 'job-big', 'size test');
    // Assess
    expect(bytes).toBeLessThan(DYNAMO_ITEM_LIMIT / 2);
    expect(m.telemetry.logs.map((log) => log.message)).toContain('extension granted');
    expect(answer).toMatchObject({ granted: true });
    expect(cancelled.status).toBe('CANCELLED');
    const job = await m.getJob('job-big');
    expect(decodeGrants(job.tracking.workerGrants).size).toBe(WORKFLOWS - 1);
    expect(job.tracking.workersWithExtensions).toBe(WORKFLOWS - 1);
    expect(job.tracking.totalExtensionsGranted).toBe((WORKFLOWS - 1) * 58.125);
  });
});
