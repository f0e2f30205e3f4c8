import { describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { OUTBOX_RETRY_MS } from '../../shared/app/decide-and-save.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import type { Job } from '../../shared/domain/job.js';
import { DEFAULT_TENANT } from '../../shared/domain/tenant.js';
import { at } from '../support/fixtures.js';
import { FlakyHistory } from './support/flaky-history.js';
import { submit, useTestManager, type TestManager } from './support/test-manager.js';


/** The real job store; the next job write can be made to land and then kill the process, before its effects. */
class StoreThatDiesAfterAJobWrite extends DynamoJobStore {
  dieAfterNextJobWrite = false;
  override async saveJob(job: Job, expectedVersion: number): Promise<Job> {
    const saved = await super.saveJob(job, expectedVersion);
    if (this.dieAfterNextJobWrite) {
      this.dieAfterNextJobWrite = false;
      throw new Error('the process died after the write');
    }
    return saved;
  }
}

const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };
const history = (m: TestManager) => m.deps.history as FlakyHistory;
const listedStatus = async (m: TestManager) => (await history(m).listJobs({ tenant: DEFAULT_TENANT, limit: 10 })).jobs.map((row) => row.status);

/** Nothing of the job is pending any more: its outbox published, its row written, no retry wake-up left. */
async function expectSettled(m: TestManager): Promise<void> {
  const job = await m.getJob('job-1');
  expect(job.outbox).toBeUndefined();
  expect(job.viewPending).toBeUndefined();
  expect(job.timerDueAt).toBeUndefined();
}

/** The sweep after the outbox's first retry is due. */
async function sweepAfterRetry(m: TestManager): Promise<void> {
  m.clock.set(at(60) + OUTBOX_RETRY_MS + 10_000);
  await sweepJobTimers(m.deps);
}

describe("a finished job's row in the jobs list is written before its outbox is cleared (dynalite)", () => {
  const m = useTestManager({
    history: (real) => new FlakyHistory(real),
    store: (doc, tableName) => new StoreThatDiesAfterAJobWrite(doc, tableName),
  });

  it('a timeout whose views are written clears its outbox at once and writes the row once', async () => {
    // Prepare
    await submit(m, body);
    const timer = m.timers.expectArmed('job-1');
    m.clock.set(at(60));
    // Act
    await fireJobTimer(m.deps, timer);
    // Assess
    expect(await listedStatus(m)).toEqual(['TIMED_OUT']);
    await expectSettled(m);
    expect(history(m).rowsWritten.map((row) => row.status)).toEqual(['RUNNING', 'TIMED_OUT']);
  });

  it('a timeout whose views fail keeps its outbox and retry wake-up; the sweep writes the row, then clears it', async () => {
    // Prepare: the decision's views and the immediate second try both fail
    await submit(m, body);
    const timer = m.timers.expectArmed('job-1');
    m.clock.set(at(60));
    history(m).failures = 2;
    await fireJobTimer(m.deps, timer);
    const kept = await m.getJob('job-1');
    const listedBefore = await listedStatus(m);
    // Act
    await sweepAfterRetry(m);
    // Assess
    expect(kept).toMatchObject({ status: 'TIMED_OUT', timerDueAt: at(60) + OUTBOX_RETRY_MS });
    expect(kept.outbox?.map((event) => event.detailType)).toEqual(['JobTimedOut']);
    expect(listedBefore).toEqual(['RUNNING']);
    expect(await listedStatus(m)).toEqual(['TIMED_OUT']);
    await expectSettled(m);
  });

  it('a process that dies between the timeout and its views leaves the job listed RUNNING only until the sweep', async () => {
    // Prepare
    await submit(m, body);
    const timer = m.timers.expectArmed('job-1');
    m.clock.set(at(60));
    (m.jobs as StoreThatDiesAfterAJobWrite).dieAfterNextJobWrite = true;
    await expect(fireJobTimer(m.deps, timer)).rejects.toThrow(/died/);
    const listedBefore = await listedStatus(m);
    // Act
    await sweepAfterRetry(m);
    // Assess
    expect(listedBefore).toEqual(['RUNNING']);
    expect(await listedStatus(m)).toEqual(['TIMED_OUT']);
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
    await expectSettled(m);
  });

  it('a cancel, which has nothing to publish, that dies before its views keeps a retry wake-up; the sweep lists it CANCELLED', async () => {
    // Prepare
    await submit(m, body);
    (m.jobs as StoreThatDiesAfterAJobWrite).dieAfterNextJobWrite = true;
    await expect(cancelJob(m.deps, 'job-1', 'operator')).rejects.toThrow(/died/);
    const pending = await m.getJob('job-1');
    const listedBefore = await listedStatus(m);
    // Act
    await sweepAfterRetry(m);
    // Assess
    expect(pending).toMatchObject({ status: 'CANCELLED', viewPending: true, timerDueAt: at(0) + OUTBOX_RETRY_MS });
    expect(listedBefore).toEqual(['RUNNING']);
    expect(await listedStatus(m)).toEqual(['CANCELLED']);
    await expectSettled(m);
  });

  it('a cancel writes its job item twice where views are kept: the finish, marked pending, then its clear once the row is written', async () => {
    // Prepare
    await submit(m, body);
    const writesBefore = m.calls.length;
    // Act
    await cancelJob(m.deps, 'job-1', 'operator');
    // Assess
    const jobWrites = m.calls.slice(writesBefore).filter((call) => call.command === 'PutCommand' && call.input.Item?.sk === 'JOB');
    expect(jobWrites).toHaveLength(2);
    expect(await listedStatus(m)).toEqual(['CANCELLED']);
    await expectSettled(m);
  });
});
