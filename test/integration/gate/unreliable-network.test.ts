import { randomUUID } from 'node:crypto';
import { beforeAll, describe, it } from 'vitest';
import { ok } from '../../support/vigil-client.js';
import type { FaultsRequest } from '../../support/gate-client.js';
import { eventsOf, inEveryRegion, isFinished, passTime, regionViews, REGIONS, submitAcross, timedOutGlobally, useGateCloud } from './gate-cloud.js';
import type { GateJobView } from '../../support/gate-client.js';
import type { JobView } from '../../support/vigil-client.js';

/**
 * Delivery between the gate and the regions is at-least-once and unordered: the
 * key scenarios end exactly as on a perfect network when deliveries are duplicated, dropped and
 * redelivered later, or delayed by random amounts (which reorders them). One cloud on the virtual
 * clock, so delays, redeliveries and retries happen in virtual time and a worker beats exactly when
 * the test says; one profile, and one scenario, at a time. Each waits a bounded virtual time.
 */
const profiles: Array<{ name: string; faults: FaultsRequest }> = [
  { name: 'half of all deliveries duplicated', faults: { duplicateRate: 0.5 } },
  { name: 'a third of all deliveries dropped and redelivered 500 ms later', faults: { dropRate: 0.33, redeliveryMs: 500 } },
  { name: 'every delivery delayed 0–300 ms (reordered)', faults: { delayMs: [0, 300] } },
  { name: 'all of it at once', faults: { duplicateRate: 0.5, dropRate: 0.33, redeliveryMs: 500, delayMs: [0, 300] } },
];

const gc = useGateCloud({ virtualClock: true });

const everyRegion = (jobId: string, until: (view: JobView) => boolean) => inEveryRegion(gc, jobId, until);
const gateView = async (jobId: string) => ok(await gc.gate.getJob(jobId));
const gateUntil = (jobId: string, until: (view: GateJobView) => boolean) => async () => until(await gateView(jobId));
const run = randomUUID().slice(0, 8);

describe.each(profiles.map((profile, index) => ({ ...profile, key: `p${index}-${run}` })))('with $name', ({ faults, key }) => {
  beforeAll(async () => {
    ok(await gc.gate.setFaults(faults));
  });

  it('one region times out: every region ends TIMED_OUT global_timeout, decided once', async ({ expect }) => {
    // Prepare: us-east-1 is silent (stuck after 1 s); the others keep progressing.
    const job = await submitAcross(gc, { jobId: `dc-timeout-${key}`, timeoutSeconds: 60, stuckThresholdSeconds: 1 });
    const alive = [job.worker('eu-west-1'), job.worker('ap-southeast-2')];

    // Act
    await passTime(gc, 10_000, { reporting: alive, until: everyRegion(job.jobId, timedOutGlobally) });
    const regions = await regionViews(gc, job.jobId);
    await passTime(gc, 8_000, { until: gateUntil(job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'timed_out')) });

    // Assess
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'TIMED_OUT', timeoutReason: 'global_timeout', fenceToken: 1 });
    expect(await gateView(job.jobId)).toMatchObject({ status: 'TIMED_OUT', globallyTimedOut: true, timeoutReason: 'dc_timeout:us-east-1:stuck' });
    expect((await gc.cloud.gate.deps.gates.get(job.jobId))?.timeoutFenceToken).toBe(1);
    const decisions = eventsOf(gc.cloud, job.jobId).filter((e) => e.detailType === 'JobGlobalTimeout');
    expect(new Set(decisions.map((e) => e.detail['timedOutAt'])).size).toBe(1);
  });

  it('cancel through the gate: every region ends CANCELLED', async ({ expect }) => {
    // Prepare
    const job = await submitAcross(gc, { jobId: `cancel-${key}`, timeoutSeconds: 60, stuckThresholdSeconds: 30 });

    // Act
    expect(ok(await gc.gate.cancel(job.jobId, { reason: 'noisy network' }))).toMatchObject({ status: 'CANCELLED' });
    await passTime(gc, 8_000, { until: everyRegion(job.jobId, isFinished) });
    const regions = await regionViews(gc, job.jobId);
    await passTime(gc, 8_000, { until: gateUntil(job.jobId, (view) => REGIONS.every((r) => view.datacenters[r]?.status === 'cancelled')) });

    // Assess
    for (const region of REGIONS) expect(regions[region]).toMatchObject({ status: 'CANCELLED' });
    expect(await gateView(job.jobId)).toMatchObject({ status: 'CANCELLED', globallyTimedOut: false });
    expect(eventsOf(gc.cloud, job.jobId).filter((e) => e.detailType === 'JobTimedOut')).toEqual([]);
  });

  it('completion in every region: the gate reports COMPLETED and has nothing left armed', async ({ expect }) => {
    // Prepare
    const job = await submitAcross(gc, { jobId: `complete-${key}`, timeoutSeconds: 60, stuckThresholdSeconds: 30 });

    // Act
    await Promise.all(REGIONS.map((region) => job.worker(region).complete()));
    await passTime(gc, 8_000, { until: gateUntil(job.jobId, (view) => view.status !== 'RUNNING') });
    const ended = await gateView(job.jobId);

    // Assess
    expect(ended).toMatchObject({ status: 'COMPLETED', globallyTimedOut: false });
    for (const region of REGIONS) expect(ended.datacenters[region]?.status).toBe('completed');
    expect((await gc.cloud.gate.deps.gates.get(job.jobId))?.timerDueAt).toBeUndefined();
    const types = new Set(eventsOf(gc.cloud, job.jobId).map((e) => e.detailType));
    expect(types).not.toContain('JobGlobalTimeout');
    expect(types).not.toContain('JobTimedOut');
  });
});
