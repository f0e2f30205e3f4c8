import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ok, type JobView } from '../../support/vigil-client.js';
import { countByType, eventsOf, inEveryRegion, passTime, regionViews, REGIONS, submitAcross, timedOutGlobally, useGateCloud, type Region } from './gate-cloud.js';

/**
 * The gate unreachable, down or partitioned from one region, on the real local cloud and its virtual
 * clock: time moves only when a test advances it, so the order of outage, report, fallback and heal
 * is explicit and the instants exact. Faults and the clock are global to the cloud, so these tests
 * run one after the other and each clears the faults when done. Managers fall back after
 * GATE_FALLBACK_SECONDS; an extension grants EXTENSION_SECONDS first; reports and re-sends are every second.
 */
const GATE_FALLBACK_SECONDS = 4;
const EXTENSION_SECONDS = 2;
const REPORT_INTERVAL_MS = 1_000;
/**
 * The gate decides a global deadline only this long after it: an extension granted in a region just
 * before the deadline, or whose immediate report to the gate was lost and is carried by the region's
 * next periodic report (every 10 s), must reach the gate before it declares. A region that reaches its
 * own deadline still reports its local timeout at once (condition 2), which is not delayed.
 */

const gc = useGateCloud({ gateFallbackSeconds: GATE_FALLBACK_SECONDS, extensionBaseSeconds: EXTENSION_SECONDS, virtualClock: true });
/** The gate waits one of the managers' report intervals (1 s here) plus slack past a deadline for extension reports. */
const reportGraceMs = () => gc.cloud.gate.deps.policy.extensionReportGraceSeconds * 1_000;
const run = randomUUID().slice(0, 8);

afterEach(async () => {
  ok(await gc.gate.setFaults({}));
});

const reportsFrom = (jobId: string, detailType: string) => {
  const counts: Record<string, number> = {};
  for (const e of eventsOf(gc.cloud, jobId)) if (e.detailType === detailType) counts[e.origin] = (counts[e.origin] ?? 0) + 1;
  return counts;
};
const views = (jobId: string) => regionViews(gc, jobId);
const allRegions = (jobId: string, until: (view: JobView) => boolean, regions: readonly Region[] = REGIONS) => inEveryRegion(gc, jobId, until, regions);
const gateSees = (jobId: string, status: string) => async () => {
  const view = ok(await gc.gate.getJob(jobId));
  return REGIONS.every((region) => view.datacenters[region]?.status === status);
};

describe('the gate unreachable', () => {
  it('seed 000 Scenario 2: while the gate is down the timeout reports stay pending; once it is back the next resend makes it declare', async () => {
    // Prepare: no worker reports, so every region times out locally (stuck) after 1 s.
    const job = await submitAcross(gc, { jobId: `outage-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1 });
    ok(await gc.gate.setFaults({ gateDown: true }));
    await passTime(gc, GATE_FALLBACK_SECONDS * 1_000 - 1, { until: () => REGIONS.every((region) => (reportsFrom(job.jobId, 'JobTimeoutReport')[region] ?? 0) >= 2) });
    const waiting = await views(job.jobId);

    // Act: the gate is back, well within the managers' fallback.
    ok(await gc.gate.setFaults({}));
    const backAt = gc.clock.now();
    await passTime(gc, GATE_FALLBACK_SECONDS * 1_000, { everyMs: 100, until: allRegions(job.jobId, timedOutGlobally) });
    const regions = await views(job.jobId);

    // Assess: the managers waited for the gate instead of deciding, and its decision, taken at the
    // first resend after it was back, ended them all.
    for (const region of REGIONS) expect(waiting[region]).toMatchObject({ status: 'RUNNING', timeoutTracking: { locallyTimedOut: true } });
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    const gateView = ok(await gc.gate.getJob(job.jobId));
    expect(gateView).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true });
    expect(gateView.timeoutReason).toMatch(/^dc_timeout:[a-z0-9-]+:stuck$/);
    for (const region of REGIONS) expect(gateView.datacenters[region]?.status).toBe('timed_out');
    const decision = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout');
    expect(decision?.at).toBeGreaterThanOrEqual(backAt);
    expect(decision?.at).toBeLessThanOrEqual(backAt + REPORT_INTERVAL_MS);
  });

  it('§10.7.10: the gate down past the fallback, every manager times the job out alone (gate_fallback), exactly the fallback after its first report; the gate catches up when back', async () => {
    // Prepare
    const timeoutSeconds = 6;
    const job = await submitAcross(gc, { jobId: `fallback-${run}`, timeoutSeconds, stuckThresholdSeconds: 1 });
    ok(await gc.gate.setFaults({ gateDown: true }));

    // Act
    await passTime(gc, GATE_FALLBACK_SECONDS * 1_000 + 5_000, { until: allRegions(job.jobId, (view) => view.status !== 'RUNNING') });
    const regions = await views(job.jobId);
    ok(await gc.gate.setFaults({}));

    // Assess: each region decided alone, exactly the fallback after it first reported its local timeout.
    const firstReportAt = (region: Region) => eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobTimeoutReport' && e.origin === region)?.at ?? NaN;
    for (const region of REGIONS) {
      expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'gate_fallback', timeoutTracking: { locallyTimedOut: true, globallyTimedOut: false } });
      expect(Date.parse(regions[region]?.finishedAt ?? '')).toBe(firstReportAt(region) + GATE_FALLBACK_SECONDS * 1_000);
    }
    expect(countByType(eventsOf(gc.cloud, job.jobId))['JobGlobalTimeout']).toBeUndefined();
    // Back up, the gate learns how each region ended (at the latest when it decides its own deadline, plus
    // the report grace) and nothing changes in the regions.
    await passTime(gc, timeoutSeconds * 1_000 + reportGraceMs() + 8_000, { everyMs: 500, until: gateSees(job.jobId, 'timed_out') });
    expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ status: 'TIMED_OUT' });
    for (const region of REGIONS) expect(ok(await gc.region(region).getJob(job.jobId))).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'gate_fallback' });
  });
});

describe('a region cut off from the gate', () => {
  it('gets the global timeout once the partition heals, from the gate re-sending it', async () => {
    // Prepare: us-east-1 goes stuck after 1 s; ap-southeast-2 is partitioned but its worker stays busy.
    const job = await submitAcross(gc, { jobId: `cut-off-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1 });
    ok(await gc.gate.setFaults({ cutOff: ['ap-southeast-2'] }));
    const alive = [job.worker('eu-west-1'), job.worker('ap-southeast-2')];
    const resentToAp = () => eventsOf(gc.cloud, job.jobId).filter((e) => e.detailType === 'JobGlobalTimeout' && e.detail['region'] === 'ap-southeast-2').length >= 2;
    await passTime(gc, 8_000, { reporting: alive, until: async () => resentToAp() && (await allRegions(job.jobId, timedOutGlobally, ['us-east-1', 'eu-west-1'])()) });
    const partitioned = ok(await gc.region('ap-southeast-2').getJob(job.jobId));

    // Act
    ok(await gc.gate.setFaults({}));
    const healedAt = gc.clock.now();
    await passTime(gc, 5_000, { reporting: [job.worker('ap-southeast-2')], everyMs: 100, until: allRegions(job.jobId, timedOutGlobally) });
    const regions = await views(job.jobId);

    // Assess: ended by the first re-send after the heal.
    expect(partitioned).toMatchObject({ status: 'RUNNING' });
    expect(regions['ap-southeast-2']).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    const apFinishedAt = Date.parse(regions['ap-southeast-2']?.finishedAt ?? '');
    expect(apFinishedAt).toBeGreaterThanOrEqual(healedAt);
    expect(apFinishedAt).toBeLessThanOrEqual(healedAt + REPORT_INTERVAL_MS);
    await passTime(gc, 5_000, { until: gateSees(job.jobId, 'timed_out') });
    expect(ok(await gc.gate.getJob(job.jobId))).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true });
  });
});

describe('global deadline with extensions', () => {
  it("an extension in one region moves the global deadline by that region's total, learnt from its progress reports", async () => {
    // Prepare: a 3 s job; eu-west-1 and ap-southeast-2 finish at once, us-east-1's worker is slow
    // but alive and gets an extension.
    const timeoutSeconds = 3;
    const job = await submitAcross(gc, { jobId: `extended-${run}`, timeoutSeconds, stuckThresholdSeconds: 30 });
    const submittedAt = (await gc.cloud.gate.deps.gates.get(job.jobId))?.submittedAt ?? 0;
    await job.worker('eu-west-1').complete();
    await job.worker('ap-southeast-2').complete();
    const slow = job.worker('us-east-1');
    await slow.progress(0.1);
    expect(await slow.requestExtension(0.1)).toMatchObject({ granted: true, extensionSeconds: EXTENSION_SECONDS });
    const learnt = async () => ok(await gc.gate.getJob(job.jobId)).datacenters['us-east-1']?.totalExtensionsGranted === EXTENSION_SECONDS;
    await passTime(gc, timeoutSeconds * 1_000 - 1, { reporting: [slow], until: learnt });
    const whenLearnt = ok(await gc.gate.getJob(job.jobId));
    // From here the gate's own deadline must fire: us-east-1's local timeout report cannot reach it.
    ok(await gc.gate.setFaults({ cutOff: ['us-east-1'] }));

    // Act
    await passTime(gc, submittedAt + timeoutSeconds * 1_000 + 300 - gc.clock.now(), { reporting: [slow] });
    const pastOriginalDeadline = ok(await gc.gate.getJob(job.jobId));
    await passTime(gc, submittedAt + (timeoutSeconds + EXTENSION_SECONDS) * 1_000 - gc.clock.now(), { reporting: [slow] });
    const atExtended = ok(await gc.gate.getJob(job.jobId));
    await passTime(gc, submittedAt + (timeoutSeconds + EXTENSION_SECONDS) * 1_000 + reportGraceMs() - 1 - gc.clock.now(), { reporting: [slow] });
    const justBeforeExtended = ok(await gc.gate.getJob(job.jobId));
    await gc.clock.advance(1);
    // us-east-1 has not been heard since before its deadline: the gate waits one more grace for its reports.
    const waiting = ok(await gc.gate.getJob(job.jobId));
    await gc.clock.advance(reportGraceMs());
    // Declared while us-east-1 is cut off; the gate reports TIMED_OUT once a region confirms it.
    const decided = ok(await gc.gate.getJob(job.jobId));
    ok(await gc.gate.setFaults({}));
    await passTime(gc, 5_000, { until: async () => ok(await gc.gate.getJob(job.jobId)).status !== 'RUNNING' });
    const regions = await views(job.jobId);
    const confirmed = ok(await gc.gate.getJob(job.jobId));

    // Assess: not at the original deadline, but at the extended one and the wait for the unheard region, by the gate's own rule.
    expect(whenLearnt.status).toBe('RUNNING');
    expect(pastOriginalDeadline).toMatchObject({ status: 'RUNNING', globallyTimedOut: false });
    expect(atExtended).toMatchObject({ status: 'RUNNING', globallyTimedOut: false });
    expect(justBeforeExtended).toMatchObject({ status: 'RUNNING', globallyTimedOut: false });
    expect(waiting).toMatchObject({ status: 'RUNNING', globallyTimedOut: false });
    expect(decided).toMatchObject({ status: 'RUNNING', globallyTimedOut: true, timeoutReason: 'timeout' });
    expect(confirmed).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true });
    const decision = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout');
    expect(Date.parse(String(decision?.detail['timedOutAt']))).toBe(submittedAt + (timeoutSeconds + EXTENSION_SECONDS) * 1_000 + 2 * reportGraceMs());
    // us-east-1, cut off, reached its own (extended) deadline and fell back GATE_FALLBACK_SECONDS later,
    // before the gate decided: this file's fallback (4 s) is shorter than the report grace (in production
    // the 300 s fallback outlasts it), so the gate's decision finds that region already ended on its own.
    expect(regions['us-east-1']).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'gate_fallback', timeoutTracking: { totalExtensionsGranted: EXTENSION_SECONDS } });
    expect(Date.parse(regions['us-east-1']?.finishedAt ?? '')).toBe(submittedAt + (timeoutSeconds + EXTENSION_SECONDS + GATE_FALLBACK_SECONDS) * 1_000);
    expect(regions['eu-west-1']).toMatchObject({ status: 'COMPLETED' });
    expect(regions['ap-southeast-2']).toMatchObject({ status: 'COMPLETED' });
  });

  it('an extension granted just before the global deadline reaches the gate at once, not with the next periodic report', async () => {
    // Prepare: a 3 s job; eu-west-1 and ap-southeast-2 finish at once; us-east-1's worker asks for
    // an extension right after its manager's second periodic report, so the next one would come
    // only as the original deadline passes.
    const timeoutSeconds = 3;
    const job = await submitAcross(gc, { jobId: `late-extension-${run}`, timeoutSeconds, stuckThresholdSeconds: 30 });
    const submittedAt = (await gc.cloud.gate.deps.gates.get(job.jobId))?.submittedAt ?? 0;
    await job.worker('eu-west-1').complete();
    await job.worker('ap-southeast-2').complete();
    const slow = job.worker('us-east-1');
    await passTime(gc, timeoutSeconds * 1_000 - 1, { reporting: [slow], until: () => (reportsFrom(job.jobId, 'JobProgressReport')['us-east-1'] ?? 0) >= 2 });

    // Act
    const extension = await slow.requestExtension(0.5);
    await passTime(gc, submittedAt + timeoutSeconds * 1_000 + 300 - gc.clock.now(), { reporting: [slow] });
    const pastOriginalDeadline = ok(await gc.gate.getJob(job.jobId));
    await passTime(gc, EXTENSION_SECONDS * 1_000 + 5_000, { reporting: [slow], until: allRegions(job.jobId, (view) => view.status !== 'RUNNING') });
    const regions = await views(job.jobId);

    // Assess: the job ran into its extension, in the region and at the gate, and ended exactly at it.
    expect(extension).toMatchObject({ granted: true, extensionSeconds: EXTENSION_SECONDS });
    expect(pastOriginalDeadline).toMatchObject({ status: 'RUNNING', datacenters: { 'us-east-1': { totalExtensionsGranted: EXTENSION_SECONDS } } });
    expect(regions['us-east-1']).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    const decision = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout');
    expect(Date.parse(String(decision?.detail['timedOutAt']))).toBe(submittedAt + (timeoutSeconds + EXTENSION_SECONDS) * 1_000);
  });
});
