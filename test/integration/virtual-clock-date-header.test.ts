import '../integration/gate/quiet-logs.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalCloud, type LocalCloud } from '../../shared/local/local-cloud.js';

/**
 * Workers judge Vigil's deadlines on Vigil's clock, learned from the `Date` header of its answers
 * (shared/sdk/vigil-clock.ts): on `--virtual-clock` every listener's header reads the virtual time.
 */
describe('npm start -- --virtual-clock: answers carry the virtual time in their Date header', () => {
  let cloud: LocalCloud;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'vigil-date-header-'));
    cloud = await startLocalCloud({ port: 0, regions: ['us-east-1'], dataDir, stuckThresholdSeconds: 60, gateFallbackSeconds: 60, gateStuckThresholdSeconds: 180, virtualClock: true });
  }, 120_000);

  afterAll(async () => {
    await cloud?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('after an advance of ten minutes, a region and the gate answer with the virtual time, not the system time', async () => {
    // Prepare
    const advance = await fetch(`${cloud.endpoints.gate}/_local/clock/advance`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"ms": 600000}' });
    const { now } = (await advance.json()) as { now: number };
    // Act
    const region = await fetch(`${cloud.endpoints.regions['us-east-1']}/health`);
    const gate = await fetch(`${cloud.endpoints.gate}/jobs/no-such-job`);
    // Assess: to the header's second (the clock stands still between advances)
    expect(advance.status).toBe(200);
    expect(Date.parse(region.headers.get('date') ?? '')).toBe(Math.floor(now / 1000) * 1000);
    expect(gate.status).toBe(404);
    expect(Date.parse(gate.headers.get('date') ?? '')).toBe(Math.floor(now / 1000) * 1000);
  });
});
