import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../../support/vigil-client.js';
import {
  countByType,
  eventsOf,
  REGIONS,
  sleepUntil,
  submitAcross,
  timedOutGlobally,
  useGateCloud,
  waitForGate,
  waitForRegions,
  waitUntil,
  type Region,
} from './gate-cloud.js';

/**
 * The gate unreachable, down or partitioned from one region, on the real local cloud. Faults are
 * global to the cloud, so these tests run one after the other and each clears them when done.
 * Managers fall back after GATE_FALLBACK_SECONDS; an extension grants EXTENSION_SECONDS first.
 */
const GATE_FALLBACK_SECONDS = 4;
const EXTENSION_SECONDS = 2;

const gc = useGateCloud({ gateFallbackSeconds: GATE_FALLBACK_SECONDS, extensionBaseSeconds: EXTENSION_SECONDS });
const run = randomUUID().slice(0, 8);

afterEach(async () => {
  ok(await gc.gate.setFaults({}));
});

const reportsFrom = (jobId: string, detailType: string) => {
  const counts: Record<string, number> = {};
  for (const e of eventsOf(gc.cloud, jobId)) if (e.detailType === detailType) counts[e.origin] = (counts[e.origin] ?? 0) + 1;
  return counts;
};

describe('the gate unreachable', () => {
  it('seed 000 Scenario 2: while the gate is down the timeout reports stay pending; once it is back they are resent and it declares', async () => {
    // Prepare: no worker reports, so every region times out locally (stuck) after 1 s.
    const job = await submitAcross(gc, { jobId: `outage-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1 });
    ok(await gc.gate.setFaults({ gateDown: true }));
    await waitUntil(gc, job.jobId, () => REGIONS.every((region) => (reportsFrom(job.jobId, 'JobTimeoutReport')[region] ?? 0) >= 2), 8_000, 'a resent timeout report from every region');
    const waiting = await waitForRegions(gc, job.jobId, (view) => view.timeoutTracking.locallyTimedOut, 1_000);

    // Act: the gate is back, well within the managers' fallback.
    ok(await gc.gate.setFaults({}));
    const backAt = Date.now();
    const regions = await waitForRegions(gc, job.jobId, timedOutGlobally, GATE_FALLBACK_SECONDS * 1_000);

    // Assess: the managers waited for the gate instead of deciding, and its decision ended them all.
    for (const region of REGIONS) expect(waiting[region]).toMatchObject({ status: 'RUNNING', timeoutTracking: { locallyTimedOut: true } });
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
    const gateView = await waitForGate(gc, job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'timed_out'), 5_000);
    expect(gateView).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true });
    expect(gateView.timeoutReason).toMatch(/^dc_timeout:[a-z0-9-]+:stuck$/);
    const decision = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout');
    expect(decision?.at).toBeGreaterThanOrEqual(backAt);
  });

  it('§10.7.10: the gate down past the fallback, every manager times the job out alone (gate_fallback); the gate catches up when back', async () => {
    // Prepare
    const timeoutSeconds = 6;
    const job = await submitAcross(gc, { jobId: `fallback-${run}`, timeoutSeconds, stuckThresholdSeconds: 1 });
    ok(await gc.gate.setFaults({ gateDown: true }));

    // Act
    const regions = await waitForRegions(gc, job.jobId, (view) => view.status !== 'RUNNING', GATE_FALLBACK_SECONDS * 1_000 + 5_000);
    ok(await gc.gate.setFaults({}));

    // Assess: each region decided alone, no sooner than the fallback after it first reported its
    // local timeout (the report says when: `elapsedSeconds` after the job started there).
    const firstReportedAt = (region: Region) => {
      const report = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobTimeoutReport' && e.origin === region);
      return Date.parse(regions[region].timeoutTracking.startedAt) + Number(report?.detail['elapsedSeconds']) * 1_000;
    };
    for (const region of REGIONS) {
      expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'gate_fallback', timeoutTracking: { locallyTimedOut: true, globallyTimedOut: false } });
      expect(Date.parse(regions[region].finishedAt ?? '') - firstReportedAt(region)).toBeGreaterThanOrEqual(GATE_FALLBACK_SECONDS * 1_000 - 1);
    }
    expect(countByType(eventsOf(gc.cloud, job.jobId))['JobGlobalTimeout']).toBeUndefined();
    // Back up, the gate learns how each region ended (at the latest from its own deadline) and nothing changes in the regions.
    const gateView = await waitForGate(gc, job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'timed_out'), timeoutSeconds * 1_000 + 8_000);
    expect(gateView.status).toBe('TIMED_OUT');
    for (const region of REGIONS) expect(ok(await gc.region(region).getJob(job.jobId))).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'gate_fallback' });
  });
});

describe('a region cut off from the gate', () => {
  it('gets the global timeout once the partition heals, from the gate re-sending it', async () => {
    // Prepare: us-east-1 goes stuck after 1 s; ap-southeast-2 is partitioned but its worker stays busy.
    const job = await submitAcross(gc, { jobId: `cut-off-${run}`, timeoutSeconds: 60, stuckThresholdSeconds: 1 });
    ok(await gc.gate.setFaults({ cutOff: ['ap-southeast-2'] }));
    const stops = (['eu-west-1', 'ap-southeast-2'] as const).map((region) => job.worker(region).keepReporting());
    try {
      await waitForRegions(gc, job.jobId, timedOutGlobally, 8_000, ['us-east-1', 'eu-west-1']);
      await waitUntil(
        gc,
        job.jobId,
        () => eventsOf(gc.cloud, job.jobId).filter((e) => e.detailType === 'JobGlobalTimeout' && e.detail['region'] === 'ap-southeast-2').length >= 2,
        5_000,
        'a re-sent decision to ap-southeast-2',
      );
      const partitioned = ok(await gc.region('ap-southeast-2').getJob(job.jobId));

      // Act
      ok(await gc.gate.setFaults({}));
      const healedAt = Date.now();
      const regions = await waitForRegions(gc, job.jobId, timedOutGlobally, 5_000);

      // Assess
      expect(partitioned).toMatchObject({ status: 'RUNNING' });
      expect(regions['ap-southeast-2']).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
      expect(Date.parse(regions['ap-southeast-2'].finishedAt ?? '')).toBeGreaterThanOrEqual(healedAt);
      await waitForGate(gc, job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'timed_out'), 5_000);
    } finally {
      await Promise.all(stops.map((stop) => stop()));
    }
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
    const stop = slow.keepReporting();
    try {
      const learnt = await waitForGate(gc, job.jobId, (view) => view.datacenters['us-east-1']?.totalExtensionsGranted === EXTENSION_SECONDS, timeoutSeconds * 1_000);
      // From here the gate's own deadline must fire: us-east-1's local timeout report cannot reach it.
      ok(await gc.gate.setFaults({ cutOff: ['us-east-1'] }));

      // Act
      await sleepUntil(submittedAt + timeoutSeconds * 1_000 + 300);
      const pastOriginalDeadline = ok(await gc.gate.getJob(job.jobId));
      // Declared while us-east-1 is cut off; the gate reports TIMED_OUT once a region confirms it.
      const decided = await waitForGate(gc, job.jobId, (view) => view.globallyTimedOut === true, EXTENSION_SECONDS * 1_000 + 5_000);
      ok(await gc.gate.setFaults({}));
      const regions = await waitForRegions(gc, job.jobId, (view) => view.status !== 'RUNNING', 5_000);
      const confirmed = await waitForGate(gc, job.jobId, (view) => view.status !== 'RUNNING', 5_000);

      // Assess: not at the original deadline, but at the extended one, by the gate's own rule.
      expect(learnt.status).toBe('RUNNING');
      expect(pastOriginalDeadline.status).toBe('RUNNING');
      expect(decided).toMatchObject({ status: 'RUNNING', globallyTimedOut: true, timeoutReason: 'timeout' });
      expect(confirmed).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true });
      const decision = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout');
      expect(Date.parse(String(decision?.detail['timedOutAt']))).toBeGreaterThanOrEqual(submittedAt + (timeoutSeconds + EXTENSION_SECONDS) * 1_000);
      expect(regions['us-east-1']).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout', timeoutTracking: { totalExtensionsGranted: EXTENSION_SECONDS } });
      expect(regions['eu-west-1']).toMatchObject({ status: 'COMPLETED' });
      expect(regions['ap-southeast-2']).toMatchObject({ status: 'COMPLETED' });
    } finally {
      await stop();
    }
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
    const stop = slow.keepReporting();
    try {
      await waitUntil(gc, job.jobId, () => (reportsFrom(job.jobId, 'JobProgressReport')['us-east-1'] ?? 0) >= 2, timeoutSeconds * 1_000, "us-east-1's second progress report");

      // Act
      const extension = await slow.requestExtension(0.5);
      await sleepUntil(submittedAt + timeoutSeconds * 1_000 + 300);
      const pastOriginalDeadline = ok(await gc.gate.getJob(job.jobId));
      const regions = await waitForRegions(gc, job.jobId, (view) => view.status !== 'RUNNING', EXTENSION_SECONDS * 1_000 + 5_000);

      // Assess: the job ran into its extension, in the region and at the gate.
      expect(extension).toMatchObject({ granted: true, extensionSeconds: EXTENSION_SECONDS });
      expect(pastOriginalDeadline).toMatchObject({ status: 'RUNNING', datacenters: { 'us-east-1': { totalExtensionsGranted: EXTENSION_SECONDS } } });
      expect(regions['us-east-1']).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout' });
      const decision = eventsOf(gc.cloud, job.jobId).find((e) => e.detailType === 'JobGlobalTimeout');
      expect(Date.parse(String(decision?.detail['timedOutAt']))).toBeGreaterThanOrEqual(submittedAt + (timeoutSeconds + EXTENSION_SECONDS) * 1_000);
    } finally {
      await stop();
    }
  });
});
