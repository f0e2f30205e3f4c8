import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalCloud, type LocalCloud } from '../../shared/local/local-cloud.js';
import { describeWithEmulator } from '../support/emulator.js';

/** Polls `read` until `done` holds, failing with the last value after the deadline. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > giveUpAt) throw new Error(`condition not met in ${timeoutMs} ms; last value ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describeWithEmulator('the local cloud on an AWS endpoint (AWS_ENDPOINT_URL) instead of dynalite', (emulator) => {
  let cloud: LocalCloud;
  let dataDir: string;
  const saved = process.env['AWS_ENDPOINT_URL'];

  beforeAll(async () => {
    process.env['AWS_ENDPOINT_URL'] = emulator.clientConfig().endpoint;
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-endpoint-'));
    // Job ids are fresh per run, so tables left at the endpoint by an earlier run do no harm.
    cloud = await startLocalCloud({
      port: 0,
      regions: ['us-west-2', 'eu-central-1'],
      dataDir,
      gateFallbackSeconds: 300,
      stuckThresholdSeconds: 120,
      gateStuckThresholdSeconds: 180,
    });
  });

  afterAll(async () => {
    await cloud?.close();
    if (saved === undefined) delete process.env['AWS_ENDPOINT_URL'];
    else process.env['AWS_ENDPOINT_URL'] = saved;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('a gate job runs on the endpoint: submitted to both regions, timed out everywhere, nothing on disk', async () => {
    // Prepare
    const [first, second] = Object.keys(cloud.endpoints.regions);
    const body = {
      timeoutSeconds: 1,
      datacenters: {
        [first as string]: { workflows: [{ workflowId: 'a', workerId: 'wa' }] },
        [second as string]: { workflows: [{ workflowId: 'b', workerId: 'wb' }] },
      },
    };
    // Act
    const submitted = await fetch(`${cloud.endpoints.gate}/jobs`, { method: 'POST', body: JSON.stringify(body) });
    const { jobId } = (await submitted.json()) as { jobId: string };
    // Assess
    expect(submitted.status).toBe(201);
    const gateView = await until(
      async () => (await (await fetch(`${cloud.endpoints.gate}/jobs/${jobId}`)).json()) as { status: string },
      (view) => view.status === 'TIMED_OUT',
    );
    expect(gateView).toMatchObject({ globallyTimedOut: true });
    for (const url of Object.values(cloud.endpoints.regions)) {
      const regionView = await until(
        async () => (await (await fetch(`${url}/jobs/${jobId}`)).json()) as { status: string; timeoutReason?: string },
        (view) => view.status === 'TIMED_OUT',
      );
      expect(regionView.timeoutReason).toBe('global_timeout');
    }
    expect(existsSync(join(dataDir, 'dynamodb'))).toBe(false);
  });
});
