import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { useGateCloud } from './gate/gate-cloud.js';

/** A request to the local cloud's HTTP API as a tenant (`x-vigil-tenant`), or as the default tenant. */
async function call(url: string, method: 'GET' | 'POST', tenant: string | undefined, body?: unknown) {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': 'application/json', ...(tenant !== undefined ? { 'x-vigil-tenant': tenant } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const errorCode = (answer: { body: Record<string, unknown> }) => (answer.body['error'] as { code?: string } | undefined)?.code;
const listed = (answer: { body: Record<string, unknown> }) => (answer.body['jobs'] as Array<{ jobId: string }>).map((row) => row.jobId);

describe('the local cloud over HTTP: x-vigil-tenant picks the tenant, and a tenant sees only its own jobs', () => {
  const gc = useGateCloud();
  const run = randomUUID().slice(0, 8);

  it('on a region manager: another tenant (or none) gets 404 on every job route and an empty list; the owner keeps its job', async () => {
    // Prepare
    const region = gc.cloud.endpoints.regions['us-east-1'] ?? '';
    const jobId = `local-${run}`;
    const job = `${region}/jobs/${jobId}`;
    const submitted = await call(`${region}/jobs`, 'POST', 'team-t', { jobId, timeoutSeconds: 600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    // Act
    const foreign = await Promise.all([
      call(job, 'GET', 'team-u'),
      call(`${job}/tokens`, 'GET', 'team-u'),
      call(`${job}/history`, 'GET', 'team-u'),
      call(`${job}/cancel`, 'POST', 'team-u', {}),
      call(`${job}/takeover`, 'POST', 'team-u'),
      call(job, 'GET', undefined),
    ]);
    const [listOfU, listOfT, own] = await Promise.all([call(`${region}/jobs`, 'GET', 'team-u'), call(`${region}/jobs`, 'GET', 'team-t'), call(job, 'GET', 'team-t')]);
    // Assess
    expect(submitted.status).toBe(201);
    expect(foreign.map((answer) => [answer.status, errorCode(answer)])).toEqual(Array.from({ length: 6 }, () => [404, 'job_not_found']));
    expect(listed(listOfU)).not.toContain(jobId);
    expect(listed(listOfT)).toContain(jobId);
    expect(own.body).toMatchObject({ status: 'RUNNING', fenceToken: 1 });
  });

  it("pools too: another tenant (or none) gets 404 on the pool and its claims, and the same body is a 409; the owner's agent claims", async () => {
    // Prepare
    const region = gc.cloud.endpoints.regions['us-east-1'] ?? '';
    const poolId = `pool-${run}`;
    const pool = `${region}/pools/${poolId}`;
    const body = { poolId, items: [{ itemId: 'i-1' }], config: {} };
    const created = await call(`${region}/pools`, 'POST', 'team-t', body);
    // Act
    const foreign = await Promise.all([call(pool, 'GET', 'team-u'), call(`${pool}/claims`, 'POST', 'team-u', { agentId: 'a-u' }), call(pool, 'GET', undefined)]);
    const sameBody = await call(`${region}/pools`, 'POST', 'team-u', body);
    const claimed = await call(`${pool}/claims`, 'POST', 'team-t', { agentId: 'a-t' });
    // Assess
    expect(created.status).toBe(201);
    expect(foreign.map((answer) => [answer.status, errorCode(answer)])).toEqual(Array.from({ length: 3 }, () => [404, 'pool_not_found']));
    expect(sameBody.status).toBe(409);
    expect(claimed.body).toMatchObject({ itemId: 'i-1', attempt: 1 });
  });

  it('on the gate: another tenant gets 404 and cannot cancel; the owner\'s cancel reaches every region (the gate\'s own call)', async () => {
    // Prepare
    const jobId = `gate-${run}`;
    const gateJob = `${gc.cloud.endpoints.gate}/jobs/${jobId}`;
    const usJob = `${gc.cloud.endpoints.regions['us-east-1'] ?? ''}/jobs/${jobId}`;
    const datacenters = { 'us-east-1': { workflows: [{ workflowId: 'wf-us', workerId: 'worker-a' }] }, 'eu-west-1': { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-a' }] } };
    const submitted = await call(`${gc.cloud.endpoints.gate}/jobs`, 'POST', 'team-t', { jobId, timeoutSeconds: 600, datacenters });
    // Act
    const foreign = await Promise.all([
      call(gateJob, 'GET', 'team-u'),
      call(`${gateJob}/history`, 'GET', 'team-u'),
      call(`${gateJob}/cancel`, 'POST', 'team-u', {}),
      call(usJob, 'GET', 'team-u'),
    ]);
    const listOfU = await call(`${gc.cloud.endpoints.gate}/jobs`, 'GET', 'team-u');
    const cancelled = await call(`${gateJob}/cancel`, 'POST', 'team-t', { reason: 'done' });
    const inRegion = await pollUntil(
      async () => {
        const answer = await call(usJob, 'GET', 'team-t');
        return answer.body['status'] === 'CANCELLED' ? answer : undefined;
      },
      { what: `${jobId} cancelled in us-east-1`, timeoutMs: 30_000 },
    );
    // Assess
    expect(submitted.status).toBe(201);
    expect(foreign.map((answer) => [answer.status, errorCode(answer)])).toEqual(Array.from({ length: 4 }, () => [404, 'job_not_found']));
    expect(listed(listOfU)).not.toContain(jobId);
    expect(cancelled.body).toMatchObject({ jobId, status: 'CANCELLED' });
    expect(inRegion.status).toBe(200);
  });
});
