import { randomUUID } from 'node:crypto';
import { describe, it } from 'vitest';
import { progressCoalesceMs } from '../../../shared/domain/deadlines.js';
import { failed, ok } from '../../support/vigil-client.js';
import { countByType, eventsOf, passTime, regionViews, REGIONS, submitAcross, useGateCloud, type GateCloud, type Region } from './gate-cloud.js';

/**
 * Global timeouts on the real local cloud (gate + three managers, each on its own dynalite), without
 * injected faults, on the virtual clock: time moves only when a test advances it, so each test orders
 * its events explicitly and asserts exact instants. They share the clock, so they run one after the
 * other. The gate's stuck threshold is 1 s so that the all-stuck rule can be seen; every test that does
 * not want it keeps a worker beating.
 */
const GATE_STUCK_SECONDS = 1;
/** The jobs' own stuck threshold in the all-stuck tests: far enough that no manager times out first. */
const LOCAL_STUCK_SECONDS = 30;

const gc = useGateCloud({ gateStuckThresholdSeconds: GATE_STUCK_SECONDS, virtualClock: true });
const run = randomUUID().slice(0, 8);

const statusesOf = async (cloud: GateCloud, jobId: string) => Object.values(await regionViews(cloud, jobId)).map((view) => view?.status);
/** When a job with this stuck threshold and no progress since `lastProgressAt` is declared stuck (deadlines.ts). */
const stuckAt = (lastProgressAt: number, stuckThresholdSeconds: number) => lastProgressAt + stuckThresholdSeconds * 1_000 + progressCoalesceMs(stuckThresholdSeconds);

describe('global timeout across three regions', () => {
  it('§10.7.2: one region times out locally, the gate declares, every region ends TIMED_OUT global_timeout, all at that instant', async ({ expect }) => {
    // Prepare: us-east-1's worker is silent (stuck after 1.5 s); the other two keep progressing.
    const submittedAt = gc.clock.now();
    const job = await submitAcross(gc, { jobId: `dc-timeout-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1.5 });
    const alive = [job.worker('eu-west-1'), job.worker('ap-southeast-2')];
    const stuckInEast = stuckAt(submittedAt, 1.5);

    // Act
    await passTime(gc, stuckInEast - 1 - submittedAt, { reporting: alive });
    const justBefore = await statusesOf(gc, job.jobId);
    await gc.clock.advanceTo(stuckInEast);
    const regions = await regionViews(gc, job.jobId);

    // Assess: one decision, caused by us-east-1's local timeout, reached and ended every region at once.
    expect(justBefore).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
    for (const region of REGIONS) {
      expect(regions[region]).toMatchObject({ strategy: 'gate_coordinated', status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
      expect(Date.parse(regions[region]?.finishedAt ?? '')).toBe(stuckInEast);
    }
    const gateView = ok(await gc.gate.getJob(job.jobId));
    expect(gateView).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true, timeoutReason: 'dc_timeout:us-east-1:stuck' });
    for (const region of REGIONS) expect(gateView.datacenters[region]?.status).toBe('timed_out');
    const events = eventsOf(gc.cloud, job.jobId);
    const reports = events.filter((e) => e.detailType === 'JobTimeoutReport');
    expect(new Set(reports.map((e) => e.origin))).toEqual(new Set(['us-east-1']));
    expect(new Set(events.filter((e) => e.detailType === 'JobGlobalTimeout').map((e) => e.detail['region']))).toEqual(new Set(REGIONS));
    const timedOut = events.filter((e) => e.detailType === 'JobTimedOut');
    expect(new Set(timedOut.map((e) => e.origin))).toEqual(new Set(REGIONS));
    expect(new Set(timedOut.map((e) => e.detail['reason']))).toEqual(new Set(['global_timeout']));
    // A worker that reports now is told to stop.
    expect(await job.worker('eu-west-1').progress(0.9)).toMatchObject({ status: 'TIMED_OUT', cancel: true });
  });

  it('all regions stuck: managers keep reporting without progress, the gate times the job out after its stuck threshold, never before', async ({ expect }) => {
    // Prepare: eu-west-1's worker progresses for 1.2 s, then no worker reports at all; each
    // manager's own stuck threshold is far away, so only the gate's rule can fire.
    const job = await submitAcross(gc, { jobId: `all-stuck-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: LOCAL_STUCK_SECONDS });
    const worker = job.worker('eu-west-1');
    let lastProgressAt = 0;
    for (const progress of [0.1, 0.2, 0.3, 0.4]) {
      lastProgressAt = gc.clock.now();
      expect(await worker.progress(progress)).toMatchObject({ cancel: false });
      await gc.clock.advance(400);
    }
    // The gate's rule may be late by the managers' progress coalescing (stuck-regions.ts), never early.
    const neverBefore = lastProgressAt + GATE_STUCK_SECONDS * 1_000;

    // Act
    await gc.clock.advanceTo(neverBefore - 1);
    const beforeThreshold = await statusesOf(gc, job.jobId);
    await passTime(gc, 10_000, { everyMs: 100, until: async () => ((await statusesOf(gc, job.jobId))).every((status) => status !== 'RUNNING') });
    const regions = await regionViews(gc, job.jobId);

    // Assess: the gate's rule fired (no region timed out locally), not before the last region to
    // progress had been silent for the threshold, and at the first report that showed it.
    expect(beforeThreshold).toEqual(['RUNNING', 'RUNNING', 'RUNNING']);
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout', timeoutTracking: { locallyTimedOut: false } });
    expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'stuck' });
    const events = eventsOf(gc.cloud, job.jobId);
    expect(countByType(events)['JobTimeoutReport']).toBeUndefined();
    const decision = events.find((e) => e.detailType === 'JobGlobalTimeout');
    const decidedAt = Date.parse(String(decision?.detail['timedOutAt']));
    expect(decidedAt).toBeGreaterThanOrEqual(neverBefore);
    const lastReportBefore = events.filter((e) => e.detailType === 'JobProgressReport' && e.at <= decidedAt).at(-1);
    expect(lastReportBefore?.at).toBe(decidedAt);
  });

  it('seed 000 Scenario 1 across regions: a takeover keeps startedAt, the gate learns the new token and addresses its decision with it', async ({ expect }) => {
    // Prepare: us-east-1 will go stuck after 3 s; the others keep progressing.
    const submittedAt = gc.clock.now();
    const job = await submitAcross(gc, { jobId: `takeover-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 3 });
    const alive = [job.worker('eu-west-1'), job.worker('ap-southeast-2')];
    const before = ok(await gc.region('eu-west-1').getJob(job.jobId));

    // Act: leadership of the job moves in eu-west-1; its transfer reaches the gate at once.
    expect(ok(await gc.region('eu-west-1').takeOver(job.jobId))).toEqual({ fenceToken: 2 });
    await gc.clock.settle();
    const gateLearnt = ok(await gc.gate.getJob(job.jobId));
    await passTime(gc, stuckAt(submittedAt, 3) - submittedAt, { reporting: alive });
    const regions = await regionViews(gc, job.jobId);

    // Assess: tracking resumed from the same start; the decision reached eu-west-1 at its new token
    // at once, so it never had to correct the gate.
    expect(gateLearnt.datacenters['eu-west-1']?.fenceToken).toBe(2);
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    expect(regions['eu-west-1']).toMatchObject({ fenceToken: 2, timeoutTracking: { startedAt: before.timeoutTracking.startedAt } });
    const events = eventsOf(gc.cloud, job.jobId);
    const toEuWest = events.filter((e) => e.detailType === 'JobGlobalTimeout' && e.detail['region'] === 'eu-west-1');
    expect(toEuWest.length).toBeGreaterThanOrEqual(1);
    expect(new Set(toEuWest.map((e) => e.detail['fenceToken']))).toEqual(new Set([2]));
    const transfers = events.filter((e) => e.detailType === 'JobLeaderTransfer').map((e) => `${e.origin}:${String(e.detail['fenceToken'])}`);
    expect(new Set(transfers)).toEqual(new Set(['eu-west-1:2']));
    expect(events.find((e) => e.detailType === 'JobTimedOut' && e.origin === 'eu-west-1')?.detail).toMatchObject({ fenceToken: 2, reason: 'global_timeout' });
  });

  it('cancel through the gate ends the job in every region at once; a second cancel is a 409', async ({ expect }) => {
    // Prepare
    const job = await submitAcross(gc, { jobId: `cancel-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 30 });
    expect(await job.worker('ap-southeast-2').progress(0.3)).toMatchObject({ status: 'RUNNING', cancel: false });

    // Act
    const cancelled = await gc.gate.cancel(job.jobId, { reason: 'operator asked' });
    await gc.clock.settle();
    const regions = await regionViews(gc, job.jobId);

    // Assess
    expect(ok(cancelled)).toMatchObject({ status: 'CANCELLED' });
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'CANCELLED', workflows: [{ state: 'cancelled' }] });
    const gateView = ok(await gc.gate.getJob(job.jobId));
    expect(gateView).toMatchObject({ status: 'CANCELLED', globallyTimedOut: false });
    for (const region of REGIONS) expect(gateView.datacenters[region]?.status).toBe('cancelled');
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
    await gc.clock.settle();
    const partial = ok(await gc.gate.getJob(job.jobId));
    await job.worker('ap-southeast-2').complete();
    await gc.clock.settle();
    const done = ok(await gc.gate.getJob(job.jobId));

    // Assess: RUNNING until every region has its outcome, then COMPLETED with nothing left armed.
    expect(partial).toMatchObject({ status: 'RUNNING', datacenters: { 'us-east-1': { status: 'completed' }, 'eu-west-1': { status: 'completed' }, 'ap-southeast-2': { status: 'running' } } });
    expect(done).toMatchObject({ status: 'COMPLETED', globallyTimedOut: false });
    expect((await gc.cloud.gate.deps.gates.get(job.jobId))?.timerDueAt).toBeUndefined();
    for (const region of REGIONS) {
      const stored = await gc.cloud.regions.get(region)?.deps.jobs.getJob(job.jobId);
      expect(stored).toMatchObject({ status: 'COMPLETED' });
      expect(stored?.timerDueAt).toBeUndefined();
    }
    // Nothing happens at or after the global deadline: the wake-ups still armed fire and change nothing.
    await gc.clock.advanceTo((gateJob?.submittedAt ?? 0) + timeoutSeconds * 1_000 + 1_500);
    expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ status: 'COMPLETED' });
    const events = eventsOf(gc.cloud, job.jobId);
    expect(new Set(events.map((e) => e.detailType))).not.toContain('JobGlobalTimeout');
    expect(new Set(events.map((e) => e.detailType))).not.toContain('JobTimeoutReport');
    expect(new Set(events.map((e) => e.detailType))).not.toContain('JobTimedOut');
    expect(new Set(events.filter((e) => e.detailType === 'JobFinalStatus').map((e) => e.origin))).toEqual(new Set(REGIONS));
  });

  // the report's workflow counts and recent-progress flag reach the gate's view.
  it("the gate's view shows each region's workflow counts and whether it progressed recently, from its reports", async ({ expect }) => {
    // Prepare: only ap-southeast-2's worker progresses (which also keeps the all-stuck rule away).
    const job = await submitAcross(gc, { jobId: `view-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: LOCAL_STUCK_SECONDS });
    const busyWorker = job.worker('ap-southeast-2');
    const report = (region: Region) => async () => ok(await gc.gate.getJob(job.jobId)).datacenters[region]?.lastReport;

    // Act: time passes with the busy worker beating until the quiet regions' reports say they have
    // had no recent progress, and the busy one's that it had.
    await passTime(gc, 15_000, {
      reporting: [busyWorker],
      until: async () =>
        (await report('us-east-1')())?.hasRecentProgress === false &&
        (await report('eu-west-1')())?.hasRecentProgress === false &&
        (await report('ap-southeast-2')())?.hasRecentProgress === true,
    });
    const view = ok(await gc.gate.getJob(job.jobId));

    // Assess
    expect(view).toMatchObject({ status: 'RUNNING', globallyTimedOut: false });
    expect(view.datacenters['us-east-1']?.lastReport?.hasRecentProgress).toBe(false);
    expect(view.datacenters['ap-southeast-2']?.lastReport?.hasRecentProgress).toBe(true);
    for (const region of REGIONS) {
      expect(view.datacenters[region]).toMatchObject({ status: 'running', lastReport: { workflows: { total: 1, completed: 0, failed: 0 } } });
    }
    expect(Date.parse(view.datacenters['us-east-1']?.lastReport?.at ?? '')).toBeGreaterThan(Date.parse(view.datacenters['us-east-1']?.lastProgressAt ?? ''));
  });
});
