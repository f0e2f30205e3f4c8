import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../../support/vigil-client.js';
import { eventsOf, REGIONS, submitAcross, useGateCloud, waitForGate, waitForRegions, waitUntil } from './gate-cloud.js';

/**
 * Issue 7, finding 6, on the real local cloud: ap-southeast-2's JobFinalStatus is lost (the region is
 * cut off from the gate when it completes). At the global deadline the gate's decision asks again,
 * the region answers COMPLETED, and the gate's view ends COMPLETED.
 */
const gc = useGateCloud();
const run = randomUUID().slice(0, 8);

afterEach(async () => {
  ok(await gc.gate.setFaults({}));
});

describe('a lost JobFinalStatus', () => {
  it('a job that completed everywhere ends COMPLETED at the gate, though one final status was lost', async () => {
    // Prepare
    const timeoutSeconds = 3;
    const job = await submitAcross(gc, { jobId: `lost-final-${run}`, timeoutSeconds, stuckThresholdSeconds: 60 });
    ok(await gc.gate.setFaults({ cutOff: ['ap-southeast-2'] }));
    for (const region of REGIONS) await job.worker(region).complete();
    await waitForRegions(gc, job.jobId, (view) => view.status === 'COMPLETED', 2_000);
    const apFinal = () => eventsOf(gc.cloud, job.jobId).some((e) => e.detailType === 'JobFinalStatus' && e.origin === 'ap-southeast-2');
    await waitUntil(gc, job.jobId, apFinal, 2_000, "ap-southeast-2's final status on the (cut) wire");
    await new Promise((resolve) => setTimeout(resolve, 300));
    const beforeDeadline = ok(await gc.gate.getJob(job.jobId));

    // Act: the link heals; nobody re-sends on their own before the gate's deadline
    ok(await gc.gate.setFaults({}));
    const ended = await waitForGate(gc, job.jobId, (view) => view.datacenters['ap-southeast-2']?.status === 'completed', timeoutSeconds * 1_000 + 5_000);

    // Assess
    expect(beforeDeadline.datacenters['ap-southeast-2']?.status).toBe('running');
    expect(ended).toMatchObject({ status: 'COMPLETED', globallyTimedOut: false });
    expect(ended.withdrawnTimeoutReason).toBe('timeout');
    expect(REGIONS.map((region) => ended.datacenters[region]?.status)).toEqual(['completed', 'completed', 'completed']);
  });
});
