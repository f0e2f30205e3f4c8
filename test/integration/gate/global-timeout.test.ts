import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { failed, ok } from '../../support/vigil-client.js';
import {
  countByType,
  eventsOf,
  isFinished,
  REGIONS,
  sleepUntil,
  submitAcross,
  timedOutGlobally,
  useGateCloud,
  waitForGate,
  waitForRegions,
} from './gate-cloud.js';

/**
 * Global timeouts on the real local cloud (gate + three managers, each on its own dynalite), without
 * injected faults. The tests own their jobs and run side by side; the gate's stuck threshold is 1 s
 * so that the all-stuck rule can be seen, and every test that does not want it keeps a worker busy.
 */
const GATE_STUCK_SECONDS = 1;
/** The gate allows for the managers' progress coalescing on top of its threshold (stuck-regions.ts). */
const ALL_STUCK_WITHIN_MS = GATE_STUCK_SECONDS * 1_000 + 5_000 + 6_000;
/** The jobs' own stuck threshold in the all-stuck tests: far enough that no manager times out first. */
const LOCAL_STUCK_SECONDS = 30;

const gc = useGateCloud({ gateStuckThresholdSeconds: GATE_STUCK_SECONDS });
const run = randomUUID().slice(0, 8);

describe.concurrent('global timeout across three regions', () => {
  it('§10.7.2: one region times out locally, the gate declares, every region ends TIMED_OUT global_timeout', async ({ expect }) => {
    // Prepare: us-east-1's worker is silent (stuck after 1.5 s); the other two keep progressing.
    const job = await submitAcross(gc, { jobId: `dc-timeout-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1.5 });
    const stops = (['eu-west-1', 'ap-southeast-2'] as const).map((region) => job.worker(region).keepReporting());

    // Act
    const regions = await waitForRegions(gc, job.jobId, timedOutGlobally, 10_000);
    await Promise.all(stops.map((stop) => stop()));

    // Assess: one decision, caused by us-east-1's local timeout, reached and ended every region.
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ strategy: 'gate_coordinated', status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    const gateView = await waitForGate(gc, job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'timed_out'), 5_000);
    expect(gateView).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true, timeoutReason: 'dc_timeout:us-east-1:stuck' });
    const events = eventsOf(gc.cloud, job.jobId);
    const reports = events.filter((e) => e.detailType === 'JobTimeoutReport');
    expect(reports.map((e) => e.origin)).toContain('us-east-1');
    expect(reports.map((e) => e.origin)).not.toContain('eu-west-1');
    expect(new Set(events.filter((e) => e.detailType === 'JobGlobalTimeout').map((e) => e.detail['region']))).toEqual(new Set(REGIONS));
    const timedOut = events.filter((e) => e.detailType === 'JobTimedOut');
    expect(new Set(timedOut.map((e) => e.origin))).toEqual(new Set(REGIONS));
    expect(new Set(timedOut.map((e) => e.detail['reason']))).toEqual(new Set(['global_timeout']));
    // A worker that reports now is told to stop.
    expect(await job.worker('eu-west-1').progress(0.9)).toMatchObject({ status: 'TIMED_OUT', cancel: true });
  });

  it('all regions stuck: managers keep reporting without progress, the gate times the job out after its stuck threshold', async ({ expect }) => {
    // Prepare: eu-west-1's worker progresses for a moment, then no worker reports at all; each
    // manager's own stuck threshold is far away, so only the gate's rule can fire.
    const job = await submitAcross(gc, { jobId: `all-stuck-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: LOCAL_STUCK_SECONDS });
    const worker = job.worker('eu-west-1');
    let lastProgressAt = 0;
    for (const progress of [0.1, 0.2, 0.3, 0.4]) {
      lastProgressAt = Date.now();
      expect(await worker.progress(progress)).toMatchObject({ cancel: false });
      await sleep(400);
    }

    // Act
    const regions = await waitForRegions(gc, job.jobId, timedOutGlobally, ALL_STUCK_WITHIN_MS);

    // Assess: the gate's rule fired (no region timed out locally), and not before the last region to
    // progress had been silent for the threshold.
    for (const region of REGIONS) expect(regions[region].timeoutTracking.locallyTimedOut).toBe(false);
    // The gate reads TIMED_OUT once a region's final status confirms its decision (gate-job-status.ts).
    const gateView = await waitForGate(gc, job.jobId, (view) => view.status !== 'RUNNING', 5_000);
    expect(gateView).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'stuck' });
    const events = eventsOf(gc.cloud, job.jobId);
    expect(countByType(events)['JobTimeoutReport']).toBeUndefined();
    expect(countByType(events)['JobProgressReport']).toBeGreaterThanOrEqual(3 * 2);
    const decision = events.find((e) => e.detailType === 'JobGlobalTimeout');
    expect(Date.parse(String(decision?.detail['timedOutAt'])) - lastProgressAt).toBeGreaterThanOrEqual(GATE_STUCK_SECONDS * 1_000);
  });

  it('seed 000 Scenario 1 across regions: a takeover keeps startedAt, the gate learns the new token and addresses its decision with it', async ({ expect }) => {
    // Prepare: us-east-1 will go stuck after 3 s; the others keep progressing.
    const job = await submitAcross(gc, { jobId: `takeover-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 3 });
    const stops = (['eu-west-1', 'ap-southeast-2'] as const).map((region) => job.worker(region).keepReporting());
    const before = ok(await gc.region('eu-west-1').getJob(job.jobId));

    // Act: leadership of the job moves in eu-west-1.
    expect(ok(await gc.region('eu-west-1').takeOver(job.jobId))).toEqual({ fenceToken: 2 });
    await waitForGate(gc, job.jobId, (view) => view.datacenters['eu-west-1']?.fenceToken === 2, 2_500);
    const regions = await waitForRegions(gc, job.jobId, timedOutGlobally, 10_000);
    await Promise.all(stops.map((stop) => stop()));

    // Assess: tracking resumed from the same start; the decision reached eu-west-1 at its new token
    // at once, so it never had to correct the gate.
    expect(regions['eu-west-1']).toMatchObject({ fenceToken: 2, timeoutTracking: { startedAt: before.timeoutTracking.startedAt } });
    const events = eventsOf(gc.cloud, job.jobId);
    const toEuWest = events.filter((e) => e.detailType === 'JobGlobalTimeout' && e.detail['region'] === 'eu-west-1');
    expect(toEuWest.length).toBeGreaterThanOrEqual(1);
    expect(new Set(toEuWest.map((e) => e.detail['fenceToken']))).toEqual(new Set([2]));
    // Delivery is at least once: a wake-up and the takeover may both publish the outbox, so count distinct transfers.
    const transfers = events.filter((e) => e.detailType === 'JobLeaderTransfer').map((e) => `${e.origin}:${String(e.detail['fenceToken'])}`);
    expect(new Set(transfers)).toEqual(new Set(['eu-west-1:2']));
    expect(events.find((e) => e.detailType === 'JobTimedOut' && e.origin === 'eu-west-1')?.detail).toMatchObject({ fenceToken: 2, reason: 'global_timeout' });
  });

  it('cancel through the gate ends the job in every region; a second cancel is a 409', async ({ expect }) => {
    // Prepare
    const job = await submitAcross(gc, { jobId: `cancel-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 30 });
    expect(await job.worker('ap-southeast-2').progress(0.3)).toMatchObject({ status: 'RUNNING', cancel: false });

    // Act
    const cancelled = await gc.gate.cancel(job.jobId, { reason: 'operator asked' });
    const regions = await waitForRegions(gc, job.jobId, isFinished, 5_000);

    // Assess
    expect(ok(cancelled)).toMatchObject({ status: 'CANCELLED' });
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'CANCELLED', workflows: [{ state: 'cancelled' }] });
    const gateView = await waitForGate(gc, job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'cancelled'), 5_000);
    expect(gateView).toMatchObject({ status: 'CANCELLED', globallyTimedOut: false });
    expect(failed(await gc.gate.cancel(job.jobId), 409).code).toBe('job_finished');
    expect(await job.worker('ap-southeast-2').progress(0.4)).toMatchObject({ status: 'CANCELLED', cancel: true });
    const counts = countByType(eventsOf(gc.cloud, job.jobId));
    expect(counts['JobGlobalTimeout']).toBeUndefined();
    expect(counts['JobTimedOut']).toBeUndefined();
    expect(counts['JobFinalStatus']).toBeGreaterThanOrEqual(3);
    expect((await gc.cloud.gate.deps.gates.get(job.jobId))?.timerDueAt).toBeUndefined();
  });

  it('§10.7.7 cleanup: the gate aggregates completion, disarms its timer, and sends no global timeout afterwards', async ({ expect }) => {
    // Prepare: a 3 s global deadline that the job beats.
    const timeoutSeconds = 3;
    const job = await submitAcross(gc, { jobId: `complete-${run}`, timeoutSeconds, stuckThresholdSeconds: 30 });
    const gateJob = await gc.cloud.gate.deps.gates.get(job.jobId);
    expect(gateJob?.timerDueAt).toBeDefined();

    // Act: two regions finish; then the last one.
    await job.worker('us-east-1').complete();
    await job.worker('eu-west-1').complete();
    const partial = await waitForGate(gc, job.jobId, (view) => view.datacenters['eu-west-1']?.status === 'completed' && view.datacenters['us-east-1']?.status === 'completed', 2_000);
    await job.worker('ap-southeast-2').complete();
    const done = await waitForGate(gc, job.jobId, (view) => view.status !== 'RUNNING', 2_000);

    // Assess: RUNNING until every region has its outcome, then COMPLETED with nothing left armed.
    expect(partial).toMatchObject({ status: 'RUNNING', datacenters: { 'ap-southeast-2': { status: 'running' } } });
    expect(done).toMatchObject({ status: 'COMPLETED', globallyTimedOut: false });
    expect((await gc.cloud.gate.deps.gates.get(job.jobId))?.timerDueAt).toBeUndefined();
    for (const region of REGIONS) {
      const stored = await gc.cloud.regions.get(region)?.deps.jobs.getJob(job.jobId);
      expect(stored).toMatchObject({ status: 'COMPLETED' });
      expect(stored?.timerDueAt).toBeUndefined();
    }
    // Nothing happens at or after the global deadline: no zombie timeout anywhere.
    await sleepUntil((gateJob?.submittedAt ?? 0) + timeoutSeconds * 1_000 + 1_500);
    expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ status: 'COMPLETED' });
    const events = eventsOf(gc.cloud, job.jobId);
    expect(new Set(events.map((e) => e.detailType))).not.toContain('JobGlobalTimeout');
    expect(new Set(events.map((e) => e.detailType))).not.toContain('JobTimeoutReport');
    expect(new Set(events.map((e) => e.detailType))).not.toContain('JobTimedOut');
    expect(new Set(events.filter((e) => e.detailType === 'JobFinalStatus').map((e) => e.origin))).toEqual(new Set(REGIONS));
  });

  // Issue 7, finding 18 (gate part): the report's workflow counts and recent-progress flag reach the gate's view.
  it("the gate's view shows each region's workflow counts and whether it progressed recently, from its reports", async ({ expect }) => {
    // Prepare: only ap-southeast-2's worker progresses (which also keeps the all-stuck rule away).
    const job = await submitAcross(gc, { jobId: `view-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: LOCAL_STUCK_SECONDS });
    const stop = job.worker('ap-southeast-2').keepReporting();

    // Act: wait until the quiet regions' reports say they have had no recent progress, and the busy one's that it had.
    const quiet = await waitForGate(
      gc,
      job.jobId,
      (v) => v.datacenters['us-east-1']?.lastReport?.hasRecentProgress === false && v.datacenters['eu-west-1']?.lastReport?.hasRecentProgress === false,
      15_000,
    );
    const busy = await waitForGate(gc, job.jobId, (v) => v.datacenters['ap-southeast-2']?.lastReport?.hasRecentProgress === true, 15_000);
    // Without progress the job then ends by the gate's all-stuck rule.
    await stop();

    // Assess
    for (const view of [quiet, busy]) {
      expect(view).toMatchObject({ status: 'RUNNING', globallyTimedOut: false });
      for (const region of REGIONS) {
        expect(view.datacenters[region]).toMatchObject({ status: 'running', lastReport: { workflows: { total: 1, completed: 0, failed: 0 } } });
      }
    }
    expect(Date.parse(quiet.datacenters['us-east-1']?.lastReport?.at ?? '')).toBeGreaterThan(Date.parse(quiet.datacenters['us-east-1']?.lastProgressAt ?? ''));
  });
});
