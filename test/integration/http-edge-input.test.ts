import '../integration/gate/quiet-logs.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startConsoleServer } from '../../shared/console/console-server.js';
import { startLocalCloud, type LocalCloud } from '../../shared/local/local-cloud.js';
import { rawRequest } from '../support/raw-request.js';
import { errorBodySchema } from '../support/vigil-client.js';

/**
 * Review findings at the HTTP edge and in the local cloud: malformed input, odd numbers, the console
 * server. Each was a 500, or a failed request that changed state.
 */

let cloud: LocalCloud;
let dataDir: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'vigil-edge-input-'));
  cloud = await startLocalCloud({
    port: 0,
    regions: ['us-east-1', 'eu-west-1'],
    dataDir,
    stuckThresholdSeconds: 60,
    gateFallbackSeconds: 60,
    gateStuckThresholdSeconds: 180,
    virtualClock: true,
  });
}, 120_000);

afterAll(async () => {
  await cloud?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

const region = () => cloud.endpoints.regions['us-east-1'] as string;
const gate = () => cloud.endpoints.gate;

/** A request as the same machine's client sends it (own Host), with a raw path and body. */
async function send(base: string, method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const answer = await rawRequest(base + path, {
    method,
    headers: { host: new URL(base).host, 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body } : {}),
  });
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    json = undefined;
  }
  return { status: answer.status, body: answer.body, json };
}

const job = (jobId: string) => JSON.stringify({ jobId, timeoutSeconds: 300, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });

describe('console routes on the gate listener', () => {
  it('a console path whose target is malformed percent-encoding is a 4xx in the error shape, not a 500', async () => {
    // Act
    const answer = await send(gate(), 'GET', '/console/api/%E0/jobs');

    // Assess
    expect(answer.status, answer.body).toBeGreaterThanOrEqual(400);
    expect(answer.status, answer.body).toBeLessThan(500);
    expect(errorBodySchema.safeParse(answer.json).success, answer.body).toBe(true);
  });
});

describe('vigil console server', () => {
  let consoleServer: Awaited<ReturnType<typeof startConsoleServer>>;
  beforeAll(async () => {
    consoleServer = await startConsoleServer({
      targets: { regions: { 'us-east-1': 'http://127.0.0.1:9' } },
      port: 0,
      sign: false,
      forward: async () => ({ statusCode: 200, contentType: 'application/json', body: '{}' }),
    });
  });
  afterAll(async () => {
    await consoleServer?.close();
  });

  it('a body over 6 MiB is a 413 payload_too_large that leaks no internal error text', async () => {
    // Act
    const answer = await send(consoleServer.url, 'POST', '/console/api/us-east-1/jobs', 'x'.repeat(7 * 1024 * 1024), { 'x-vigil-console-key': consoleServer.key });

    // Assess
    expect(answer.status, answer.body).toBe(413);
    expect(answer.body).not.toMatch(/Error: body too large/);
  });
});

describe('pools created from YAML', () => {
  it('an item input of YAML .nan is a 400 invalid_request, not a 500 from the DynamoDB marshaller', async () => {
    // Act
    const answer = await send(region(), 'POST', '/pools', 'poolId: nan-pool\nitems:\n  - itemId: a\n    input: { x: .nan }\n', {
      'content-type': 'application/yaml',
    });

    // Assess
    expect(answer.status, answer.body).toBe(400);
    expect((answer.json as { error: { code: string } }).error.code).toBe('invalid_request');
  });
});

describe('takeover', () => {
  it('a takeover with a malformed JSON body is a 400 that changes nothing (the fence token stays)', async () => {
    // Prepare
    expect((await send(region(), 'POST', '/jobs', job('takeover-garbage'))).status).toBe(201);

    // Act
    const answer = await send(region(), 'POST', '/jobs/takeover-garbage/takeover', '{"fenceToken": ');
    const after = await send(region(), 'GET', '/jobs/takeover-garbage');

    // Assess
    expect(answer.status, answer.body).toBe(400);
    expect((after.json as { fenceToken: number }).fenceToken, 'a failed request changes nothing').toBe(1);
  });
});

describe('virtual clock', () => {
  it('a fractional {"ms"} advance is refused, so GET /jobs keeps accepting the cursors it issues', async () => {
    // Prepare: an advance by half a millisecond is asked for, then three jobs
    const advanced = await send(region(), 'POST', '/_local/clock/advance', '{"ms": 0.5}');
    for (const id of ['frac-1', 'frac-2', 'frac-3']) expect((await send(region(), 'POST', '/jobs', job(id))).status).toBe(201);

    // Act
    const first = await send(region(), 'GET', '/jobs?limit=1');
    const cursor = (first.json as { nextCursor?: string }).nextCursor;
    const second = await send(region(), 'GET', `/jobs?limit=1&cursor=${encodeURIComponent(cursor ?? '')}`);

    // Assess
    expect(advanced.status, advanced.body).toBe(400);
    expect(cursor).toBeDefined();
    expect(second.status, second.body).toBe(200);
    expect((second.json as { jobs: unknown[] }).jobs).toHaveLength(1);
  });
});

describe('retrying later', () => {
  it('a 503 keys_refreshing tells when to retry in a Retry-After header, as its body does', async () => {
    // Prepare: a real token whose key id is swapped for one no ring holds; its first check reads the ring (403)
    const submitted = await send(region(), 'POST', '/jobs', job('retry-after-1'));
    const token = (submitted.json as { workflows: Array<{ token: string }> }).workflows[0]?.token ?? '';
    const [jobId, workflowId, incarnation, keyed] = token.split('.');
    const underMadeUpKey = (id: string) => [jobId, workflowId, incarnation, `${id}~${keyed?.split('~')[1] ?? ''}`].join('.');
    const progress = (forged: string) =>
      fetch(`${region()}/jobs/retry-after-1/workflows/wf-1/progress`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-vigil-token': forged },
        body: JSON.stringify({ workerId: 'worker-a' }),
      });
    await progress(underMadeUpKey('madeUpKeyA'));

    // Act: another unknown id while the ring may not be read again (the virtual clock stands still)
    const answer = await progress(underMadeUpKey('madeUpKeyB'));

    // Assess
    const body = errorBodySchema.parse(await answer.json()).error as { code: string; details?: { retryAfterSeconds?: number } };
    expect(submitted.status, submitted.body).toBe(201);
    expect(answer.status).toBe(503);
    expect(body.code).toBe('keys_refreshing');
    expect(answer.headers.get('retry-after')).toBe(String(body.details?.retryAfterSeconds));
    expect(Number(answer.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});

describe('query strings', () => {
  it('a parameter given twice reaches the handler as API Gateway sends it (values joined by commas): refused with 400, not the last value alone', async () => {
    // Prepare: a running job, which a filter by the last value alone (FAILED) would quietly leave out
    expect((await send(region(), 'POST', '/jobs', job('repeated-status'))).status).toBe(201);

    // Act
    const answer = await send(region(), 'GET', '/jobs?status=RUNNING&status=FAILED');

    // Assess
    expect(answer.status, answer.body).toBe(400);
    expect((answer.json as { error: { code: string; details: Array<{ field: string }> } }).error).toMatchObject({
      code: 'invalid_request',
      details: [{ field: 'status' }],
    });
  });
});
