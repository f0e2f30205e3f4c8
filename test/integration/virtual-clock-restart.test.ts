import './gate/quiet-logs.js';
import { describe, expect, it } from 'vitest';
import { pollUntil } from '../support/poll.js';
import { VigilProcess } from '../support/vigil-process.js';
import type { LocalCloud } from '../../shared/local/local-cloud.js';
import { useTempClouds } from './support/temp-clouds.js';
import { rawRequest } from '../support/vigil-client.js';

const { tempDir, start: startCloud } = useTempClouds('vigil-review-rc-');
const start = (dataDir: string) => startCloud(dataDir, { virtualClock: true });

/** An advance of an hour can outlast the default 10 s request timeout. */
const call = async (url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> =>
  rawRequest(url, method, path, body === undefined ? undefined : JSON.stringify(body), {}, 120_000);

const now = async (cloud: LocalCloud) => (await call(cloud.endpoints.gate, 'GET', '/_local/clock')).body.now as number;

describe('POST /_local/clock/advance with bad input', () => {
  it('a "to" that is in the past by the time its turn comes (another advance ran first) is a 400, not a 500', async () => {
    const cloud = await start(tempDir());
    const before = await now(cloud);
    const first = call(cloud.endpoints.gate, 'POST', '/_local/clock/advance', { ms: 3_600_000 });
    const second = call(cloud.endpoints.gate, 'POST', '/_local/clock/advance', { to: before + 1_800_000 });
    const [a, b] = await Promise.all([first, second]);
    expect(a.status).toBe(200);
    expect(`${b.status} ${b.body?.error?.code}`, JSON.stringify(b.body)).toBe('400 invalid_request');
    expect(await now(cloud)).toBe(before + 3_600_000);
  }, 60_000);
});

describe('kill -9 during an advance', () => {
  it('a restart never takes the virtual time back before a time the clock already showed (and decided jobs at)', async () => {
    const vigil = await VigilProcess.start({ regions: ['us-east-1'], virtualClock: true });
    try {
      const url = vigil.regionUrl();
      const before = (await call(vigil.endpoints.gate, 'GET', '/_local/clock')).body.now as number;
      await call(url, 'POST', '/jobs', { jobId: 'k-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'w-1' }] });
      const advancing = call(vigil.endpoints.gate, 'POST', '/_local/clock/advance', { ms: 3_600_000 }).catch(() => undefined);
      const seen = await pollUntil(
        async () => {
          const t = (await call(vigil.endpoints.gate, 'GET', '/_local/clock')).body.now as number;
          return t >= before + 600_000 ? t : undefined;
        },
        { what: 'the advance to pass 10 minutes', timeoutMs: 60_000, intervalMs: 5 },
      );
      const job = (await call(url, 'GET', '/jobs/k-1')).body;
      expect(job.status).toBe('TIMED_OUT');
      await vigil.kill('SIGKILL');
      await advancing;
      await vigil.restart();
      const after = (await call(vigil.endpoints.gate, 'GET', '/_local/clock')).body.now as number;
      const finishedAt = Date.parse((await call(url, 'GET', '/jobs/k-1')).body.finishedAt);
      expect(after, `clock shown ${seen} before the kill, ${after} after the restart; job k-1 finishedAt ${finishedAt} is in the restarted clock's future`).toBeGreaterThanOrEqual(seen);
    } finally {
      await vigil.stop();
    }
  }, 180_000);
});
