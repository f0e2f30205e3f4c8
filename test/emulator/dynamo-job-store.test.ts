import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { expect, it } from 'vitest';
import { DynamoJobStore } from '../../shared/adapters/aws/dynamo-job-store.js';
import { ensureTable } from '../../shared/adapters/aws/jobs-table.js';
import type { DecisionContext } from '../../shared/domain/decision-context.js';
import { timeOutJob } from '../../shared/domain/finish-job.js';
import { defaultTimeoutPolicy } from '../../shared/domain/policy.js';
import { startJob } from '../../shared/domain/submit-job.js';
import { takeOverJob } from '../../shared/domain/take-over-job.js';
import { newWorker } from '../../shared/domain/worker-health.js';
import { VersionConflictError } from '../../shared/ports/job-store.js';
import { required, uniqueName } from '../support/aws-test-resources.js';
import { describeWithEmulator, type EmulatorClientConfig } from '../support/emulator.js';

const T0 = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const ctxAt = (now: number): DecisionContext => ({ now, policy: defaultTimeoutPolicy, managerId: 'eu-west-1/manager' });

/** A table of its own, created through the store's own table definition (the sparse timer index included). */
async function freshStore(clientConfig: EmulatorClientConfig): Promise<DynamoJobStore> {
  const client = new DynamoDBClient(clientConfig);
  const tableName = uniqueName('vigil-jobs');
  await ensureTable(client, tableName, true);
  return new DynamoJobStore(DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } }), tableName);
}

function submitted(jobId: string, timeoutSeconds = 600, now = T0) {
  const workflows = [
    { workflowId: 'wf-a', workerId: 'worker-1' },
    { workflowId: 'wf-b', workerId: 'worker-2' },
  ];
  return startJob({ jobId, timeoutSeconds, stuckThresholdSeconds: 3_600, workflows }, `digest-${jobId}`, 'eu-west-1', ctxAt(now), `incarnation-${jobId}`);
}

describeWithEmulator('DynamoDB job store: conditional writes and fencing', (emulator) => {
  it('creates a job and its workflows once; a second create answers the stored job', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const first = submitted('job:create');
    const second = submitted('job:create', 9_999);

    // Act
    const created = await store.createJob(first.job, first.workflows);
    const again = await store.createJob(second.job, second.workflows);

    // Assess
    expect(created).toEqual({ created: true, job: { ...first.job, version: 1 } });
    expect(again).toEqual({ created: false, existing: { ...first.job, version: 1 } });
    const stored = required(await store.getJobWithWorkflows('job:create'), 'job not stored');
    expect(stored.workflows.map((w) => w.workflowId)).toEqual(['wf-a', 'wf-b']);
  });

  it('writes only on the version it read: a stale write is rejected and changes nothing', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job-version');
    await store.createJob(job, workflows);
    const read = required(await store.getJob('job-version'), 'job not created');
    const v2 = await store.saveJob({ ...read, cancelReason: 'first writer' }, read.version);

    // Act
    const stale = store.saveJob({ ...read, cancelReason: 'second writer' }, read.version);

    // Assess
    await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
    expect(await store.getJob('job-version')).toEqual(v2);
    expect(v2.version).toBe(2);
  });

  it('a timeout decided before a takeover cannot overwrite the new leader (fence token 2)', async () => {
    // Prepare: both the old leader and the takeover read the job at fence token 1
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job-fenced');
    await store.createJob(job, workflows);
    const readBefore = required(await store.getJob('job-fenced'), 'job not created');
    const takeover = takeOverJob(readBefore, ctxAt(T0 + 60_000));
    await store.saveJob(takeover.state, readBefore.version);

    // Act: the old leader's decision, made on what it read before the takeover
    const staleTimeout = timeOutJob(readBefore, 'timeout', ctxAt(T0 + 700_000));
    const write = store.saveJob(staleTimeout.state, readBefore.version);

    // Assess
    await expect(write).rejects.toBeInstanceOf(VersionConflictError);
    const stored = required(await store.getJob('job-fenced'), 'job vanished');
    expect(stored.status).toBe('RUNNING');
    expect(stored.tracking.fenceToken).toBe(2);
    expect(stored.tracking.startedAt).toBe(T0);
  });

  it('a completion and a timeout decided on the same version end in exactly one terminal state', async () => {
    // Prepare: both deciders read the same version (the emulator does not promise atomicity under
    // concurrent requests the way DynamoDB does, so the two writes go one after the other)
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job-race');
    await store.createJob(job, workflows);
    const read = required(await store.getJob('job-race'), 'job not created');
    const completed = { ...read, status: 'COMPLETED' as const, finishedAt: T0 + 1_000, workflowMarks: 'cc' };
    const timedOut = timeOutJob(read, 'timeout', ctxAt(T0 + 1_000)).state;

    // Act
    await store.saveJob(completed, read.version);
    const second = store.saveJob(timedOut, read.version);

    // Assess
    await expect(second).rejects.toBeInstanceOf(VersionConflictError);
    const stored = required(await store.getJob('job-race'), 'job vanished');
    expect(stored).toMatchObject({ status: 'COMPLETED', version: 2, workflowMarks: 'cc' });
    expect(stored.tracking.timeoutReason).toBeUndefined();
  });

  it('the sparse timer index lists overdue wake-ups with their fence token and drops finished jobs', async () => {
    // Prepare: due at T0+10 min, T0+20 min, T0+30 min
    const store = await freshStore(emulator.clientConfig());
    for (const [jobId, timeoutSeconds] of [['job-10', 600], ['job-20', 1_200], ['job-30', 1_800]] as const) {
      const { job, workflows } = submitted(jobId, timeoutSeconds);
      await store.createJob(job, workflows);
    }
    const job10 = required(await store.getJob('job-10'), 'job-10 not created');
    const taken = takeOverJob(job10, ctxAt(T0 + 60_000)).state;
    await store.saveJob(taken, job10.version);
    const job20 = required(await store.getJob('job-20'), 'job-20 not created');
    await store.saveJob(timeOutJob(job20, 'stuck', ctxAt(T0 + 1_000)).state, job20.version);

    // Act
    const due = await store.findDueTimers(T0 + 25 * 60_000, 100);

    // Assess
    expect(due).toEqual([{ scope: 'job', jobId: 'job-10', fenceToken: 2, dueAt: T0 + 600_000 }]);
  });

  it("the job's stuck clock is the latest advance of its workflows; an older advance never moves a workflow's back", async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job-progress');
    await store.createJob(job, workflows);

    // Act
    await store.recordWorkflowAdvance('job-progress', 'wf-a', T0 + 20_000, { step: 'b' });
    await store.recordWorkflowAdvance('job-progress', 'wf-a', T0 + 10_000, { step: 'a' });
    await store.recordWorkflowAdvance('job-progress', 'wf-b', T0 + 15_000, { progress: 0.5 });

    // Assess
    expect(await store.latestWorkflowProgressAt('job-progress', job.incarnation)).toBe(T0 + 20_000);
    expect(await store.latestWorkflowProgressAt('job-progress', 'an earlier incarnation')).toBeUndefined();
    expect(required(await store.getWorkflow('job-progress', 'wf-a'), 'workflow vanished').step).toBe('b');
  });

  // a workflow's progress value only rises, a step change is stored, heartbeats only move forward.
  it("a workflow advance is stored only while it is still ahead of the stored values; heartbeats never move back", async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job-advance');
    await store.createJob(job, workflows);

    // Act
    await store.recordWorkflowAdvance('job-advance', 'wf-a', T0 + 1_000, { progress: 0.6, step: 'load' });
    await store.recordWorkflowAdvance('job-advance', 'wf-a', T0 + 2_000, { progress: 0.4 });
    await store.recordWorkflowAdvance('job-advance', 'wf-a', T0 + 3_000, { step: 'save' });
    await store.touchWorkflowHeartbeat('job-advance', 'wf-a', T0 + 5_000);
    await store.touchWorkflowHeartbeat('job-advance', 'wf-a', T0 + 4_000);
    await store.recordWorkflowAdvance('job-advance', 'wf-missing', T0 + 6_000, { progress: 1 });

    // Assess
    expect(await store.getWorkflow('job-advance', 'wf-a')).toMatchObject({
      progress: 0.6,
      step: 'save',
      lastProgressAt: T0 + 3_000,
      lastHeartbeatAt: T0 + 5_000,
    });
    expect(await store.getWorkflow('job-advance', 'wf-missing')).toBeUndefined();
  });

  it('a report that raised progress and changed step keeps its progress when a concurrent report took the same step first', async () => {
    // Prepare: both reports were judged against { progress 0.5, step a }
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job-race');
    await store.createJob(job, workflows);
    await store.recordWorkflowAdvance('job-race', 'wf-a', T0 + 500, { progress: 0.5, step: 'a' });
    // Act: the step-only report lands first
    await store.recordWorkflowAdvance('job-race', 'wf-a', T0 + 1_000, { step: 'b' });
    await store.recordWorkflowAdvance('job-race', 'wf-a', T0 + 1_001, { progress: 0.9, step: 'b' });
    // Assess
    expect(await store.getWorkflow('job-race', 'wf-a')).toMatchObject({ progress: 0.9, step: 'b', lastProgressAt: T0 + 1_001 });
  });

  it('a worker is created once: a second create on version 0 is a conflict', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    await store.saveWorker(newWorker('worker-1', T0), 0);

    // Act + Assess
    await expect(store.saveWorker(newWorker('worker-1', T0 + 5), 0)).rejects.toBeInstanceOf(VersionConflictError);
    expect((await store.getWorker('worker-1'))?.lastHealthAt).toBe(T0);
  });

  it('a worker update writes its budget on the version read and never turns back a newer healthcheck', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const created = await store.saveWorker(newWorker('worker-1', T0), 0);
    await store.touchWorkerHealth('worker-1', T0 + 20_000);
    // Act
    const saved = await store.saveWorker({ ...created, budget: { ...created.budget, count: 1, totalSeconds: 30 } }, created.version);
    const stale = store.saveWorker({ ...created, failedAt: T0 }, created.version);
    // Assess
    await expect(stale).rejects.toBeInstanceOf(VersionConflictError);
    const stored = required(await store.getWorker('worker-1'), 'worker vanished');
    expect(stored).toMatchObject({ lastHealthAt: T0 + 20_000, version: saved.version, budget: { count: 1, totalSeconds: 30 } });
    expect(stored.failedAt).toBeUndefined();
  });

  it('the byWorker index lists a worker\'s live workflows and grant records; each leaves it once over', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job:index');
    await store.createJob(job, workflows);
    const grant = { jobId: 'job:index', workerId: 'worker-1', epoch: 0, count: 1, seconds: 30, grantedAt: T0 };
    // Act
    const firstIndex = await store.recordGrant({ ...grant, workerIndex: 0 });
    const keptIndex = await store.recordGrant({ ...grant, workerIndex: 7, count: 2, seconds: 45 });
    const listed = await store.findWorkOfWorker('worker-1');
    await store.leaveWorkerIndex([{ jobId: 'job:index', workflowId: 'wf-a' }]);
    await store.retireGrantRecord('job:index', 'worker-1', 0);
    const afterNewerKept = await store.findWorkOfWorker('worker-1');
    await store.retireGrantRecord('job:index', 'worker-1', 1);
    // Assess: the first record's index names the worker in the job from then on
    expect([firstIndex, keptIndex]).toEqual([0, 0]);
    expect(listed).toEqual({ workflows: [{ jobId: 'job:index', workflowId: 'wf-a', index: 0 }], grants: [{ jobId: 'job:index', workerIndex: 0 }] });
    expect(afterNewerKept).toEqual({ workflows: [], grants: [{ jobId: 'job:index', workerIndex: 0 }] });
    expect(await store.findWorkOfWorker('worker-1')).toEqual({ workflows: [], grants: [] });
    expect(await store.findGrantRecords('job:index')).toMatchObject([{ workerId: 'worker-1', workerIndex: 0, count: 2, seconds: 45 }]);
  });

  // Noticed last session: the record was set whole by every apply, so a retry of an older grant that
  // landed after the next one put the older epoch back.
  it('a grant recorded late never replaces the newer one the record holds, and answers its index', async () => {
    // Prepare
    const store = await freshStore(emulator.clientConfig());
    const { job, workflows } = submitted('job:late');
    await store.createJob(job, workflows);
    const grant = { jobId: 'job:late', incarnation: job.incarnation, workerId: 'worker-1', workerIndex: 0, grantedAt: T0 };
    await store.recordGrant({ ...grant, epoch: 1, count: 1, seconds: 30 });
    await store.recordGrant({ ...grant, epoch: 2, count: 1, seconds: 20, grantedAt: T0 + 60_000 });
    // Act: the epoch-1 grant's apply again, and a second grant of epoch 1 that lost its race
    const lateIndexes = [
      await store.recordGrant({ ...grant, epoch: 1, count: 1, seconds: 30, workerIndex: 3 }),
      await store.recordGrant({ ...grant, epoch: 1, count: 2, seconds: 45, workerIndex: 3 }),
    ];
    const afterLate = await store.findGrantRecords('job:late', job.incarnation);
    await store.recordGrant({ ...grant, epoch: 2, count: 2, seconds: 40, grantedAt: T0 + 90_000 });
    // Assess: the late ones changed nothing; the next grant of the newer budget still lands
    expect(lateIndexes).toEqual([0, 0]);
    expect(afterLate).toMatchObject([{ epoch: 2, count: 1, seconds: 20, grantedAt: T0 + 60_000, workerIndex: 0 }]);
    expect(await store.findGrantRecords('job:late', job.incarnation)).toMatchObject([{ epoch: 2, count: 2, seconds: 40, workerIndex: 0 }]);
  });
});
