import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorkflow, VigilApiError, VigilHttp, VigilUnreachableError } from '../../shared/sdk/index.js';
import { useVigilProcess } from '../e2e/e2e-support.js';
import { pollUntil } from '../support/poll.js';
import { startRecordingProxy, type RecordingProxy } from '../support/recording-proxy.js';
import { ok, VigilClient } from '../support/vigil-client.js';

const fastRetry = { retries: 3, baseDelayMs: 10, maxDelayMs: 50 };

describe('the worker SDK against npm start', () => {
  // A virtual clock: a job's short stuck threshold never ends it while a test watches the SDK beat;
  // only a cancel does.
  const vigil = useVigilProcess({ regions: ['us-east-1'], virtualClock: true });
  let proxy: RecordingProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  async function submitted(stuckThresholdSeconds = 2, timeoutSeconds = 120) {
    const client = new VigilClient(vigil.regionUrl());
    const job = ok(await client.submitJob({ jobId: `sdk-${randomUUID()}`, timeoutSeconds, stuckThresholdSeconds, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] }));
    const workflow = job.workflows[0];
    if (!workflow) throw new Error('no workflow');
    return { client, job, workflow };
  }

  it('heartbeats four times per stuck threshold, read from the job', async () => {
    // Prepare: a 2 s stuck threshold, on Vigil's frozen time: the job stays RUNNING however slow the machine
    const { job, workflow } = await submitted(2);
    proxy = await startRecordingProxy(vigil.regionUrl());
    // Act
    const handle = await startWorkflow({ endpoint: proxy.url, jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token: workflow.token });
    const startedAt = Date.now();
    const beats = () => (proxy?.requests ?? []).filter((r) => r.path.endsWith('/progress') && r.at >= startedAt);
    await pollUntil(async () => (beats().length >= 4 ? true : undefined), { what: 'four heartbeats', timeoutMs: 15_000 });
    handle.stop();
    // Assess
    expect(handle.heartbeatIntervalMs).toBe(500);
    const gaps = beats().slice(1, 4).map((beat, i) => beat.at - (beats()[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(400);
  });

  it('fires its AbortSignal when the job is cancelled', async () => {
    // Prepare
    const { client, job, workflow } = await submitted(1);
    const handle = await startWorkflow({ endpoint: vigil.regionUrl(), jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token: workflow.token });
    expect(handle.signal.aborted).toBe(false);
    // Act
    ok(await client.cancel(job.jobId, { reason: 'test' }));
    // Assess: the next heartbeat (every 250 ms) learns it
    await pollUntil(async () => (handle.signal.aborted ? true : undefined), { what: 'the AbortSignal', timeoutMs: 10_000, intervalMs: 20 });
    expect(handle.signal.reason).toMatchObject({ code: 'job_finished' });
  });

  it('retries a 5xx with backoff and answers when Vigil does (a server that fails twice)', async () => {
    // Prepare
    const { job, workflow } = await submitted(60);
    proxy = await startRecordingProxy(vigil.regionUrl());
    const handle = await startWorkflow({ endpoint: proxy.url, jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token: workflow.token, retry: fastRetry });
    handle.stop();
    const before = proxy.requests.length;
    proxy.failNext(2);
    // Act
    const answer = await handle.progress(0.5);
    // Assess
    expect(answer).toMatchObject({ status: 'RUNNING', cancel: false });
    expect(proxy.requests.slice(before).map((r) => r.status)).toEqual([503, 503, 200]);
  });

  it('never retries a 4xx, and its error carries the contract code', async () => {
    // Prepare
    const { job } = await submitted(60);
    proxy = await startRecordingProxy(vigil.regionUrl());
    // Act
    const failure = await startWorkflow({ endpoint: proxy.url, jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token: 'not-the-token', stuckThresholdSeconds: 60, retry: fastRetry }).catch((error: unknown) => error);
    // Assess
    expect(failure).toBeInstanceOf(VigilApiError);
    expect(failure).toMatchObject({ status: 403, code: 'invalid_token' });
    expect(proxy.requests.filter((r) => r.path.endsWith('/progress'))).toHaveLength(1);
  });

  it('a worker machine without AWS credentials (its signer throws) still starts and reports: only the job read is signed, and it falls back to the default cadence', async () => {
    // Prepare
    const { job, workflow } = await submitted(60);
    const noCredentials = async (): Promise<never> => {
      throw new Error('Could not load credentials from any providers');
    };
    // Act
    const handle = await startWorkflow({ endpoint: vigil.regionUrl(), jobId: job.jobId, workflowId: 'wf-1', workerId: 'worker-a', token: workflow.token, signer: noCredentials });
    const answer = await handle.progress(0.5);
    handle.stop();
    // Assess
    expect(answer).toMatchObject({ status: 'RUNNING', cancel: false, progressed: true });
    expect(handle.heartbeatIntervalMs).toBe(30_000);
  });

  it('an unknown job is a typed 404', async () => {
    const http = new VigilHttp({ endpoint: vigil.regionUrl() });
    await expect(http.call('GET', '/jobs/no-such-job')).rejects.toMatchObject({ status: 404, code: 'job_not_found' });
  });

  it('gives up on an endpoint that does not answer with VigilUnreachableError', async () => {
    // Prepare: a proxy that is closed again, so its port refuses connections
    const closed = await startRecordingProxy(vigil.regionUrl());
    await closed.close();
    const http = new VigilHttp({ endpoint: closed.url, retry: fastRetry });
    // Act + Assess
    await expect(http.call('GET', '/health')).rejects.toBeInstanceOf(VigilUnreachableError);
  });
});
