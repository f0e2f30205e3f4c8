import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as cancelJob } from '../../functions/api/cancel-job.js';
import { handler as getJobHistory } from '../../functions/api/get-job-history.js';
import { handler as getJobTokens } from '../../functions/api/get-job-tokens.js';
import { handler as getJob } from '../../functions/api/get-job.js';
import { handler as listJobs } from '../../functions/api/list-jobs.js';
import { handler as submitJob } from '../../functions/api/submit-job.js';
import { handler as takeOverJob } from '../../functions/api/take-over-job.js';
import { DynamoHistoryStore } from '../../shared/adapters/aws/dynamo-history-store.js';
import { cancelJob as cancelJobAs } from '../../shared/app/cancel-job.js';
import { submitJob as submitJobAs } from '../../shared/app/submit-job.js';
import { takeOverJob as takeOverJobAs } from '../../shared/app/take-over-job.js';
import { JobNotFoundError } from '../../shared/domain/errors.js';
import { invoke } from './support/http-events.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { useHttpTestManager, useTestManager, type TestManager } from './support/test-manager.js';
import { asT, asU, T_SESSION_1, U_USER, type Caller } from './support/tenants.js';

const job = { jobId: 'job-t', timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };
const jobPath = { pathParameters: { jobId: 'job-t' } };

/** Every client route that names a job, as the given caller. */
const routes = {
  'GET /jobs/{jobId}': (caller: Caller) => invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', ...jobPath, ...caller }),
  'GET /jobs/{jobId}/history': (caller: Caller) => invoke(getJobHistory, { method: 'GET', route: '/jobs/{jobId}/history', ...jobPath, ...caller }),
  'GET /jobs/{jobId}/tokens': (caller: Caller) => invoke(getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', ...jobPath, ...caller }),
  'POST /jobs/{jobId}/cancel': (caller: Caller) =>
    invoke(cancelJob, { method: 'POST', route: '/jobs/{jobId}/cancel', ...jobPath, body: { reason: 'not yours' }, ...caller }),
  'POST /jobs/{jobId}/takeover': (caller: Caller) => invoke(takeOverJob, { method: 'POST', route: '/jobs/{jobId}/takeover', ...jobPath, ...caller }),
};
const list = (caller: Caller) => invoke(listJobs, { method: 'GET', route: '/jobs', ...caller });
const listedIds = async (caller: Caller) => ((await list(caller)).body['jobs'] as Array<{ jobId: string }>).map((row) => row.jobId);

/** What a job that does not exist answers: another tenant's job must answer exactly this. */
const notFound = (jobId: string) => ({ statusCode: 404, body: { error: { code: 'job_not_found', message: new JobNotFoundError(jobId).message } } });

describe('HTTP: a client reads and acts only on its own tenant\'s jobs (dynalite)', () => {
  const m = useHttpTestManager();
  beforeEach(async () => {
    m.deps.history = new DynamoHistoryStore(m.doc, m.tableName, () => m.clock.now());
    const submitted = await invoke(submitJob, { method: 'POST', route: '/jobs', body: job, iamUserArn: T_SESSION_1 });
    expect(submitted.statusCode).toBe(201);
  });

  it.each(Object.keys(routes) as Array<keyof typeof routes>)('%s by another tenant → the 404 of a missing job, and nothing changes', async (route) => {
    // Prepare
    const before = await m.snapshot();
    const [published, timerCalls] = [m.bus.published.length, m.timers.calls.length];
    // Act
    const answer = await routes[route](asU);
    // Assess
    expect(answer).toEqual(notFound('job-t'));
    expect(await m.snapshot()).toEqual(before);
    expect([m.bus.published.length, m.timers.calls.length]).toEqual([published, timerCalls]);
  });

  it.each(Object.keys(routes) as Array<keyof typeof routes>)('%s by the owner, from another session of its role → 200', async (route) => {
    // Act
    const answer = await routes[route](asT);
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(answer.body['jobId']).toBe('job-t');
  });

  it('the owner\'s cancel and takeover change the job; another tenant\'s do not', async () => {
    // Act
    await routes['POST /jobs/{jobId}/takeover'](asU);
    await routes['POST /jobs/{jobId}/cancel'](asU);
    const takenOver = await routes['POST /jobs/{jobId}/takeover'](asT);
    const cancelled = await routes['POST /jobs/{jobId}/cancel'](asT);
    // Assess
    expect(takenOver.body).toEqual({ jobId: 'job-t', fenceToken: 2 });
    expect(cancelled.body).toEqual({ jobId: 'job-t', status: 'CANCELLED' });
    expect((await m.getJob('job-t')).tracking.fenceToken).toBe(2);
  });

  it('GET /jobs lists only the caller\'s tenant\'s jobs', async () => {
    // Prepare
    await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...job, jobId: 'job-u' }, iamUserArn: U_USER });
    await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...job, jobId: 'job-default' } });
    // Act
    const [ofT, ofU, ofDefault] = await Promise.all([listedIds(asT), listedIds(asU), listedIds({})]);
    // Assess
    expect(ofT).toEqual(['job-t']);
    expect(ofU).toEqual(['job-u']);
    expect(ofDefault).toEqual(['job-default']);
    expect((await list(asT)).body['jobs']).toEqual([expect.not.objectContaining({ tenant: expect.anything() })]);
  });

  it('a job without a tenant (the default tenant\'s, as every job from before tenants) is the default tenant\'s alone', async () => {
    // Prepare
    await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...job, jobId: 'job-old' } });
    const asDefault = { pathParameters: { jobId: 'job-old' } };
    const stored = await m.jobs.getJob('job-old');
    // Act
    const byDefault = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', ...asDefault });
    const byHeader = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', ...asDefault, headers: { 'x-vigil-tenant': 'team-t' } });
    const byIam = await invoke(getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', ...asDefault, iamUserArn: T_SESSION_1 });
    // Assess
    expect(stored).not.toHaveProperty('tenant');
    expect(byDefault.statusCode).toBe(200);
    expect(byHeader).toEqual(notFound('job-old'));
    expect(byIam).toEqual(notFound('job-old'));
  });

  it('locally, the x-vigil-tenant header is the tenant: another header sees nothing', async () => {
    // Prepare
    await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...job, jobId: 'job-x' }, headers: { 'x-vigil-tenant': 'team-x' } });
    const path = { pathParameters: { jobId: 'job-x' } };
    // Act
    const own = await invoke(getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', ...path, headers: { 'x-vigil-tenant': 'team-x' } });
    const other = await invoke(getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', ...path, headers: { 'x-vigil-tenant': 'team-y' } });
    const noHeader = await invoke(getJobTokens, { method: 'GET', route: '/jobs/{jobId}/tokens', ...path });
    // Assess
    expect(own.statusCode).toBe(200);
    expect(other).toEqual(notFound('job-x'));
    expect(noHeader).toEqual(notFound('job-x'));
  });
});

describe('the owner check holds on the state the conditional write is based on (dynalite)', () => {
  const m = useTestManager({ store: (doc, table) => new InterleavingJobStore(doc, table) });
  const T = 'arn:aws:sts::111111111111:assumed-role/team-t';
  const U = 'arn:aws:iam::222222222222:user/mallory';

  /**
   * Between U's read and its write, U's item goes (TTL) and T submits the same id and takes it over:
   * U's write loses the version race and decides again, on T's job. (T's job is taken over so its
   * version differs from the one U read: the store's write is conditional on the version alone.)
   */
  const reusedByTBeforeUWrites = (t: TestManager) => async () => {
    await t.dynamo.doc.send(new DeleteCommand({ TableName: t.tableName, Key: { pk: 'JOB#job-1', sk: 'JOB' } }));
    await submitJobAs(t.deps, { ...job, jobId: 'job-1', tenant: T });
    await takeOverJobAs(t.deps, 'job-1', T);
  };

  it.each([
    ['cancel', (t: TestManager) => cancelJobAs(t.deps, 'job-1', 'mine', U)],
    ['takeover', (t: TestManager) => takeOverJobAs(t.deps, 'job-1', U)],
  ] as const)('%s decided on U\'s job retries on T\'s → 404, and T\'s job is untouched', async (_name, act) => {
    // Prepare
    await submitJobAs(m.deps, { ...job, jobId: 'job-1', tenant: U });
    (m.jobs as InterleavingJobStore).beforeNextSave(reusedByTBeforeUWrites(m));
    // Act
    const attempt = act(m);
    // Assess
    await expect(attempt).rejects.toThrow(JobNotFoundError);
    const stored = await m.getJob('job-1');
    expect(stored).toMatchObject({ tenant: T, status: 'RUNNING', tracking: { fenceToken: 2 } });
  });
});
