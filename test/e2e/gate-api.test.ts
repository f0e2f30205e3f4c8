import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import { GateClient, submitGateJob, type GateJobView } from '../support/gate-client.js';
import { pollUntil } from '../support/poll.js';
import { failed, ok, VigilClient, type JobView } from '../support/vigil-client.js';
import { progressCoalesceMs } from '../../shared/domain/deadlines.js';
import { useVigilProcess } from './e2e-support.js';

/**
 * The gate API (docs/api.md) against a real `npm start` with three regions: submit fans out, one
 * stuck region times the job out everywhere, cancel reaches every region, the gate's status
 * aggregates the regions', and bad requests get the contract's errors. Default report and
 * re-send intervals (10 s): every scenario here ends through immediate messages. On the virtual
 * clock: a wait first lets the cloud settle (delivers what is on the wire) without moving time; only
 * the stuck scenario moves time, explicitly, and its instants are exact.
 */
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
type Region = (typeof REGIONS)[number];

const vigil = useVigilProcess({ regions: [...REGIONS], virtualClock: true });
let gate: GateClient;
const regionClients = new Map<Region, VigilClient>();
const run = randomUUID().slice(0, 8);

beforeAll(() => {
  gate = new GateClient(vigil.endpoints.gate);
  for (const region of REGIONS) regionClients.set(region, new VigilClient(vigil.regionUrl(region)));
});

const region = (name: Region): VigilClient => {
  const client = regionClients.get(name);
  if (!client) throw new Error(`no client for ${name}`);
  return client;
};

const submit = (jobId: string, timeoutSeconds: number, stuckThresholdSeconds: number) =>
  submitGateJob(gate, region, { jobId: `${jobId}-${run}`, timeoutSeconds, stuckThresholdSeconds, regions: REGIONS });

async function waitForGate(jobId: string, until: (job: GateJobView) => boolean, timeoutMs: number): Promise<GateJobView> {
  let last: GateJobView | undefined;
  return pollUntil(
    async () => {
      await region('us-east-1').advanceClock(0);
      last = ok(await gate.getJob(jobId));
      return until(last) ? last : undefined;
    },
    { what: () => `the gate's view of ${jobId}; last ${JSON.stringify(last)}\nVigil output:\n${vigil.logTail(10)}`, timeoutMs, intervalMs: 50 },
  );
}

async function waitForRegions(jobId: string, until: (job: JobView) => boolean, timeoutMs: number): Promise<Record<Region, JobView>> {
  const last: Partial<Record<Region, JobView>> = {};
  await pollUntil(
    async () => {
      await region('us-east-1').advanceClock(0);
      for (const name of REGIONS) last[name] = ok(await region(name).getJob(jobId));
      return REGIONS.every((name) => {
        const view = last[name];
        return view !== undefined && until(view);
      })
        ? true
        : undefined;
    },
    {
      what: () => `${jobId} in every region; last ${JSON.stringify(Object.entries(last).map(([name, v]) => [name, v.status, v.timeoutReason]))}\nVigil output:\n${vigil.logTail(10)}`,
      timeoutMs,
      intervalMs: 50,
    },
  );
  return last as Record<Region, JobView>;
}

describe.concurrent('gate coordination through a real `npm start` with three regions', () => {
  it('submit fans out: every region runs the job gate-coordinated, and each token works against its own region', async ({ expect }) => {
    // Act
    const job = await submit('fan-out', 600, 600);

    // Assess
    expect(Object.keys(job.submitted.datacenters).sort()).toEqual([...REGIONS].sort());
    for (const name of REGIONS) {
      const view = ok(await region(name).getJob(job.jobId));
      expect(view).toMatchObject({ status: 'RUNNING', strategy: 'gate_coordinated', fenceToken: 1, workflows: [{ workflowId: 'wf-1', workerId: `w-${name}-${job.jobId}` }] });
      expect(await job.worker(name).progress(0.2)).toMatchObject({ status: 'RUNNING', cancel: false });
    }
    // A token is only good in the region that issued it.
    const foreign = job.worker('us-east-1');
    const answer = await region('eu-west-1').reportProgress(job.jobId, 'wf-1', { workerId: `w-eu-west-1-${job.jobId}` }, foreign.token);
    expect(failed(answer, 403).code).toBe('invalid_token');
    expect(ok(await gate.getJob(job.jobId))).toMatchObject({
      status: 'RUNNING',
      globallyTimedOut: false,
      datacenters: Object.fromEntries(REGIONS.map((name) => [name, { status: 'running', fenceToken: 1 }])),
    });
    ok(await gate.cancel(job.jobId));
  });

  it('one region stuck: the gate times the job out and every region ends TIMED_OUT global_timeout, at the stuck instant', async ({ expect }) => {
    // Prepare: us-east-1's worker never reports (stuck after 2 s plus the coalescing allowance); the others beat every 250 ms.
    const submittedAt = ok(await region('us-east-1').clock()).now;
    const job = await submit('stuck', 600, 2);
    const stuckAt = submittedAt + 2_000 + progressCoalesceMs(2);

    const alive = [job.worker('eu-west-1'), job.worker('ap-southeast-2')];

    // Act
    for (let now = submittedAt; now < stuckAt; ) {
      for (const worker of alive) await worker.beat();
      now = await region('us-east-1').advanceClockTo(Math.min(stuckAt, now + 250));
    }
    const regions = await waitForRegions(job.jobId, (view) => view.status !== 'RUNNING', 5_000);

    // Assess
    for (const name of REGIONS) {
      expect(regions[name]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout', timeoutTracking: { globallyTimedOut: true } });
      expect(Date.parse(regions[name].finishedAt ?? '')).toBe(stuckAt);
    }
    const view = await waitForGate(job.jobId, (v) => REGIONS.every((name) => v.datacenters[name]?.status === 'timed_out'), 5_000);
    expect(view).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true, timeoutReason: 'dc_timeout:us-east-1:stuck' });
    expect(await job.worker('eu-west-1').progress(0.9)).toMatchObject({ status: 'TIMED_OUT', cancel: true });
  });

  it('cancel through the gate reaches every region; cancelling again is a 409', async ({ expect }) => {
    // Prepare
    const job = await submit('cancel', 600, 600);

    // Act
    const answer = ok(await gate.cancel(job.jobId, { reason: 'no longer needed' }));
    const regions = await waitForRegions(job.jobId, (view) => view.status !== 'RUNNING', 5_000);

    // Assess
    expect(answer).toMatchObject({ status: 'CANCELLED' });
    for (const name of REGIONS) expect(regions[name]).toMatchObject({ status: 'CANCELLED' });
    await waitForGate(job.jobId, (v) => REGIONS.every((name) => v.datacenters[name]?.status === 'cancelled'), 5_000);
    expect(failed(await gate.cancel(job.jobId), 409).code).toBe('job_finished');
    expect(await job.worker('ap-southeast-2').progress(0.5)).toMatchObject({ status: 'CANCELLED', cancel: true });
  });

  it('the gate status aggregates the regions: RUNNING until all end, then COMPLETED, or FAILED when one failed', async ({ expect }) => {
    // Prepare
    const completed = await submit('complete', 600, 600);
    const oneFailed = await submit('one-failed', 600, 600);

    // Act
    await completed.worker('us-east-1').complete();
    await completed.worker('eu-west-1').complete();
    const partial = await waitForGate(completed.jobId, (v) => v.datacenters['eu-west-1']?.status === 'completed' && v.datacenters['us-east-1']?.status === 'completed', 5_000);
    await completed.worker('ap-southeast-2').complete();
    await oneFailed.worker('us-east-1').complete('failed');
    await oneFailed.worker('eu-west-1').complete();
    await oneFailed.worker('ap-southeast-2').complete();

    // Assess
    expect(partial.status).toBe('RUNNING');
    expect(await waitForGate(completed.jobId, (v) => v.status !== 'RUNNING', 5_000)).toMatchObject({ status: 'COMPLETED', globallyTimedOut: false });
    expect(await waitForGate(oneFailed.jobId, (v) => v.status !== 'RUNNING', 5_000)).toMatchObject({
      status: 'FAILED',
      datacenters: { 'us-east-1': { status: 'failed' }, 'eu-west-1': { status: 'completed' }, 'ap-southeast-2': { status: 'completed' } },
    });
  });
});

describe.concurrent('bad requests to the gate get the contract errors and change nothing', () => {
  const workflows = [{ workflowId: 'wf-1', workerId: 'w-1' }];

  it('an unknown region under datacenters is a 400 that names it and the regions there are', async ({ expect }) => {
    // Act
    const jobId = `unknown-region-${run}`;
    const answer = await gate.submitJob({ jobId, timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows }, 'mars-north-1': { workflows } } });

    // Assess
    const error = failed(answer, 400);
    expect(error.code).toBe('unknown_region');
    expect(error.message).toContain('mars-north-1');
    for (const name of REGIONS) expect(error.message).toContain(name);
    expect(failed(await gate.getJob(jobId), 404).code).toBe('job_not_found');
    expect(failed(await region('us-east-1').getJob(jobId), 404).code).toBe('job_not_found');
  });

  it('malformed JSON is a 400 invalid_request', async ({ expect }) => {
    const answer = await gate.raw('POST', '/jobs', '{"timeoutSeconds": 60, "datacenters": ');
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_request', message: expect.any(String) } });
  });

  it.for([
    { name: 'no datacenters', body: { timeoutSeconds: 60, datacenters: {} }, field: 'datacenters' },
    { name: 'a zero timeout', body: { timeoutSeconds: 0, datacenters: { 'us-east-1': { workflows } } }, field: 'timeoutSeconds' },
    { name: 'a region without workflows', body: { timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows: [] } } }, field: 'datacenters.us-east-1.workflows' },
    { name: 'a bad jobId', body: { jobId: 'has spaces', timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows } } }, field: 'jobId' },
    { name: 'an unknown field', body: { timeoutSeconds: 60, datacenters: { 'us-east-1': { workflows } }, priority: 'high' }, field: 'priority' },
  ])('a schema violation ($name) is a 400 invalid_request naming the field', async ({ body, field }, { expect }) => {
    const answer = await gate.raw('POST', '/jobs', JSON.stringify(body));
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ error: { code: 'invalid_request', details: expect.arrayContaining([expect.objectContaining({ field })]) } });
  });

  it('an unknown job is a 404 for status and cancel; an unknown route is a 404', async ({ expect }) => {
    expect(failed(await gate.getJob(`nope-${run}`), 404).code).toBe('job_not_found');
    expect(failed(await gate.cancel(`nope-${run}`), 404).code).toBe('job_not_found');
    const route = await gate.raw('DELETE', '/jobs');
    expect(route.status).toBe(404);
    expect(route.body).toMatchObject({ error: { code: 'route_not_found' } });
  });

  it('the same jobId with another body is a 409; the same body again is a 200 with the same answer', async ({ expect }) => {
    // Prepare
    const body = { jobId: `idempotent-${run}`, timeoutSeconds: 600, datacenters: { 'us-east-1': { workflows: [{ workflowId: 'wf-1', workerId: `w-idem-${run}` }] } } };
    const first = await gate.submitJob(body);

    // Act
    const again = await gate.submitJob(body);
    const other = await gate.submitJob({ ...body, timeoutSeconds: 601 });

    // Assess
    expect(first.status).toBe(201);
    expect(again.status).toBe(200);
    expect(ok(again)).toEqual(ok(first));
    expect(failed(other, 409).code).toBe('submission_conflict');
    ok(await gate.cancel(body.jobId));
  });
});
