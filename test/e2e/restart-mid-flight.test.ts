import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { GateClient, submitGateJob } from '../support/gate-client.js';
import { pollUntil } from '../support/poll.js';
import { ok, VigilClient } from '../support/vigil-client.js';
import { isFinished, ms, LOOSE_LATENESS_MS, publishedTimedOutEvents, useVigilProcess, waitForJob } from './e2e-support.js';

/**
 * `kill -9` of the real `npm start` at two awkward moments, then a restart on
 * the same data dir. (1) Three regions, the gate has declared a global timeout that no region has
 * confirmed yet (every region cut off from the gate). (2) A burst of progress reports in flight.
 */
const REGIONS = ['us-east-1', 'eu-west-1', 'ap-southeast-2'] as const;
type Region = (typeof REGIONS)[number];

// A 2 s gate stuck threshold makes the regions report every 1 s, so the gate's grace for extension
// reports is 6 s (a report interval and 5 s of slack, the least it gets): the cut-off gate declares at
// 2 + 6 s, plus the one more grace it waits for regions it has not heard. (The gate declares the
// deadline, `timeout`, as it did with the 6 s threshold and 8 s grace this test had before.)
const vigil = useVigilProcess({ regions: [...REGIONS], gateStuckThresholdSeconds: 2 });
const run = randomUUID().slice(0, 8);
const regionClient = (region: Region) => new VigilClient(vigil.regionUrl(region));

describe('kill -9 mid-flight and a restart with the same data dir', () => {
  it('a gate job decided but not yet confirmed by any region ends TIMED_OUT global_timeout everywhere after the restart', async () => {
    // Prepare: the regions are cut off, so the decision at the 2 s global deadline reaches none of them
    const gate = new GateClient(vigil.endpoints.gate);
    const job = await submitGateJob(gate, regionClient, { jobId: `decided-${run}`, timeoutSeconds: 2, stuckThresholdSeconds: 60, regions: REGIONS });
    ok(await gate.setFaults({ cutOff: [...REGIONS] }));
    const decided = await pollUntil(
      async () => {
        const view = ok(await gate.getJob(job.jobId));
        return view.globallyTimedOut ? view : undefined;
      },
      // The global deadline (2 s) plus twice the gate's grace (6 s): 14 s.
      { what: 'the gate to declare the global timeout', timeoutMs: 30_000 },
    );
    const regionsBefore = await Promise.all(REGIONS.map(async (region) => ok(await regionClient(region).getJob(job.jobId))));

    // Act: crash; the restart starts without faults (they are not durable)
    await vigil.kill('SIGKILL');
    await vigil.restart();
    const gateAfter = new GateClient(vigil.endpoints.gate);

    // Assess: before the crash nobody had confirmed; after it, the persisted re-send reaches every region
    expect(decided.timeoutReason).toBe('timeout');
    expect(REGIONS.map((region) => decided.datacenters[region]?.status)).toEqual(['running', 'running', 'running']);
    for (const view of regionsBefore) expect(view.status).toBe('RUNNING');
    for (const region of REGIONS) {
      const view = await waitForJob(vigil, regionClient(region), job.jobId, isFinished, 25_000);
      expect(view, region).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    }
    const settled = await pollUntil(
      async () => {
        const view = ok(await gateAfter.getJob(job.jobId));
        return REGIONS.every((region) => view.datacenters[region]?.status === 'timed_out') ? view : undefined;
      },
      { what: 'every region confirmed to the gate', timeoutMs: 15_000 },
    );
    expect(settled).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true });
  }, 90_000);

  it('a kill during a burst of progress loses no job: its deadline is unchanged and it times out once, on time', async () => {
    // Prepare
    const client = regionClient('us-east-1');
    const workflows = Array.from({ length: 20 }, (_, i) => ({ workflowId: `wf-${i}`, workerId: `w-${i}-${run}` }));
    const job = ok(await client.submitJob({ jobId: `burst-${run}`, timeoutSeconds: 12, stuckThresholdSeconds: 60, workflows }));
    const before = ok(await client.getJob(job.jobId));
    let stop = false;
    const burst = job.workflows.map(async (w, i) => {
      for (let n = 1; !stop && n <= 500; n++) {
        const answer = await client.reportProgress(job.jobId, w.workflowId, { workerId: w.workerId, progress: n / 1_000 + i / 1e6 }, w.token).catch(() => undefined);
        if (answer === undefined) return;
      }
    });

    // Act: kill in the middle of the burst
    await new Promise((resolve) => setTimeout(resolve, 400));
    await vigil.kill('SIGKILL');
    stop = true;
    await Promise.all(burst);
    await vigil.restart();
    const after = regionClient('us-east-1');

    // Assess: the job is intact and still tracked; progress still works; it times out once, on time
    const restarted = ok(await after.getJob(job.jobId));
    expect(restarted).toMatchObject({ status: 'RUNNING', deadlineAt: before.deadlineAt, fenceToken: before.fenceToken });
    expect(ms(restarted.timeoutTracking.lastProgressAt)).toBeGreaterThanOrEqual(ms(before.timeoutTracking.lastProgressAt));
    const first = job.workflows[0];
    if (!first) throw new Error('no workflow');
    expect(ok(await after.reportProgress(job.jobId, first.workflowId, { workerId: first.workerId, progress: 0.9 }, first.token))).toMatchObject({ cancel: false });
    const ended = await waitForJob(vigil, after, job.jobId, isFinished, 25_000);
    expect(ended).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'timeout' });
    expect(ms(ended.finishedAt) - ms(before.deadlineAt)).toBeLessThan(LOOSE_LATENESS_MS);
    expect(await publishedTimedOutEvents(after, job.jobId)).toHaveLength(1);
  }, 90_000);
});
