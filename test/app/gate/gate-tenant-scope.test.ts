import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { beforeEach, describe, expect, it } from 'vitest';
import { handler as cancelJob } from '../../../functions/gate-api/cancel-job.js';
import { handler as getJobHistory } from '../../../functions/gate-api/get-job-history.js';
import { handler as getJob } from '../../../functions/gate-api/get-job.js';
import { handler as listJobs } from '../../../functions/gate-api/list-jobs.js';
import { handler as submitJob } from '../../../functions/gate-api/submit-job.js';
import { DynamoHistoryStore } from '../../../shared/adapters/aws/dynamo-history-store.js';
import { getJob as getRegionJob } from '../../../shared/app/get-job.js';
import { JobNotFoundError } from '../../../shared/domain/errors.js';
import { invoke, type HttpRequest } from '../support/http-events.js';
import type { RecordingBus } from '../support/recording-ports.js';
import { REGIONS } from '../support/test-regions.js';
import { useHttpTestGate } from '../support/use-http-test-gate.js';

const T = 'arn:aws:sts::111111111111:assumed-role/team-t';
const asT: Caller = { iamUserArn: `${T}/session-2` };
const asU: Caller = { iamUserArn: 'arn:aws:iam::222222222222:user/mallory' };
type Caller = Pick<HttpRequest, 'iamUserArn' | 'headers'>;

const body = {
  jobId: 'job-t',
  timeoutSeconds: 300,
  datacenters: Object.fromEntries(REGIONS.map((region) => [region, { workflows: [{ workflowId: `wf-${region}`, workerId: 'worker-a' }] }])),
};
const jobPath = { pathParameters: { jobId: 'job-t' } };
const routes = {
  'GET /jobs/{jobId}': (caller: Caller) => invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', ...jobPath, ...caller }),
  'GET /jobs/{jobId}/history': (caller: Caller) => invoke(getJobHistory, { method: 'GET', route: '/jobs/{jobId}/history', ...jobPath, ...caller }),
  'POST /jobs/{jobId}/cancel': (caller: Caller) =>
    invoke(cancelJob, { method: 'POST', route: '/jobs/{jobId}/cancel', ...jobPath, body: { reason: 'not yours' }, ...caller }),
};
const notFound = (jobId: string) => ({ statusCode: 404, body: { error: { code: 'job_not_found', message: new JobNotFoundError(jobId).message } } });

describe('HTTP on the gate: a client reads and acts only on its own tenant\'s jobs (dynalite)', () => {
  const gate = useHttpTestGate(({ dynamo, gateTable, clock }) => ({ history: new DynamoHistoryStore(dynamo.doc, gateTable, () => clock.now()) }));
  beforeEach(async () => {
    expect((await invoke(submitJob, { method: 'POST', route: '/jobs', body, iamUserArn: `${T}/session-1` })).statusCode).toBe(201);
  });

  /** The gate's table and every region's: what a foreign call must leave as it was. */
  const everything = async () => {
    const { Items = [] } = await gate.dynamo.doc.send(new ScanCommand({ TableName: gate.gateTable, ConsistentRead: true }));
    return { gate: Items, regions: await Promise.all([...gate.managers.values()].map((m) => m.snapshot())) };
  };

  it('the gate job records its tenant, and passes it to every region', async () => {
    // Act
    const stored = await gate.deps.gates.get('job-t');
    // Assess
    expect(stored?.tenant).toBe(T);
    for (const manager of gate.managers.values()) {
      expect((await manager.getJob('job-t')).tenant).toBe(T);
      await expect(getRegionJob(manager.deps, 'job-t', 'arn:aws:iam::222222222222:user/mallory')).rejects.toThrow(JobNotFoundError);
    }
  });

  it.each(Object.keys(routes) as Array<keyof typeof routes>)('%s by another tenant → the 404 of a missing job, and nothing changes', async (route) => {
    // Prepare
    const before = await everything();
    const published = (gate.deps.bus as RecordingBus).published.length;
    // Act
    const answer = await routes[route](asU);
    // Assess
    expect(answer).toEqual(notFound('job-t'));
    expect(await everything()).toEqual(before);
    expect((gate.deps.bus as RecordingBus).published).toHaveLength(published);
  });

  it.each(Object.keys(routes) as Array<keyof typeof routes>)('%s by the owner, from another session of its role → 200', async (route) => {
    // Act
    const answer = await routes[route](asT);
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(answer.body['jobId']).toBe('job-t');
  });

  it('the same body for the same jobId from another tenant → 409 submission_conflict, and nothing changes', async () => {
    // Prepare
    const before = await everything();
    // Act
    const answer = await invoke(submitJob, { method: 'POST', route: '/jobs', body, ...asU });
    // Assess
    expect(answer.statusCode).toBe(409);
    expect(answer.body).toMatchObject({ error: { code: 'submission_conflict' } });
    expect(JSON.stringify(answer.body)).not.toContain('token');
    expect(await everything()).toEqual(before);
  });

  it('the owner\'s cancel goes out to the regions (the gate\'s own call, not scoped); another tenant\'s does not', async () => {
    // Act
    await routes['POST /jobs/{jobId}/cancel'](asU);
    const afterForeign = (await gate.deps.gates.get('job-t'))?.cancelRequested;
    const answer = await routes['POST /jobs/{jobId}/cancel'](asT);
    // Assess
    expect(afterForeign).toBeUndefined();
    expect(answer.body).toEqual({ jobId: 'job-t', status: 'CANCELLED' });
    expect((await gate.deps.gates.get('job-t'))?.cancelRequested).toEqual({ reason: 'not yours' });
  });

  it('GET /jobs lists only the caller\'s tenant\'s gate jobs; a gate job from before tenants is the default tenant\'s', async () => {
    // Prepare
    await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...body, jobId: 'job-u' }, ...asU });
    await invoke(submitJob, { method: 'POST', route: '/jobs', body: { ...body, jobId: 'job-default' } });
    const list = async (caller: Caller) =>
      ((await invoke(listJobs, { method: 'GET', route: '/jobs', ...caller })).body['jobs'] as Array<{ jobId: string }>).map((row) => row.jobId);
    // Act
    const [ofT, ofU, ofDefault] = await Promise.all([list(asT), list(asU), list({})]);
    const oldByDefault = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-default' } });
    const oldByT = await invoke(getJob, { method: 'GET', route: '/jobs/{jobId}', pathParameters: { jobId: 'job-default' }, ...asT });
    // Assess
    expect([ofT, ofU, ofDefault]).toEqual([['job-t'], ['job-u'], ['job-default']]);
    expect(await gate.deps.gates.get('job-default')).not.toHaveProperty('tenant');
    expect(oldByDefault.statusCode).toBe(200);
    expect(oldByT).toEqual(notFound('job-default'));
  });
});
