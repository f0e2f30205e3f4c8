import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../../support/vigil-client.js';
import { eventsOf, REGIONS, submitAcross, useGateCloud } from './gate-cloud.js';

/**
 * On the real local cloud: ap-southeast-2's JobFinalStatus is lost (the region is
 * cut off from the gate when it completes). At the global deadline (plus the report grace) the gate's decision asks again,
 * the region answers COMPLETED, and the gate's view ends COMPLETED. On the virtual clock: nothing
 * moves between the heal and the deadline unless the test advances time.
 */
const gc = useGateCloud({ virtualClock: true });
const run = randomUUID().slice(0, 8);

afterEach(async () => {
  ok(await gc.gate.setFaults({}));
});

describe('a lost JobFinalStatus', () => {
  it('a job that completed everywhere ends COMPLETED at the gate, though one final status was lost', async () => {
    // Prepare
    const timeoutSeconds = 3;
    const submittedAt = gc.clock.now();
    const job = await submitAcross(gc, { jobId: `lost-final-${run}`, timeoutSeconds, stuckThresholdSeconds: 60 });
    ok(await gc.gate.setFaults({ cutOff: ['ap-southeast-2'] }));
    for (const region of REGIONS) await job.worker(region).complete();
    await gc.clock.advance(300);
    const completed = await Promise.all(REGIONS.map(async (region) => ok(await gc.region(region).getJob(job.jobId)).status));
    const apFinal = eventsOf(gc.cloud, job.jobId).some((e) => e.detailType === 'JobFinalStatus' && e.origin === 'ap-southeast-2');

    // The gate decides the global deadline only the report grace after it: an extension granted in a region
    // just before the deadline, or whose immediate report was lost and is carried by the region's next
    // periodic report (every 10 s), must reach the gate first. A region's own local timeout is not delayed.
    // ap-southeast-2, unheard since before its deadline, might have granted an extension the gate missed:
    // the gate waits one more grace for its reports, then declares (and so asks it).
    const decidedAt = submittedAt + (timeoutSeconds + 2 * gc.cloud.gate.deps.policy.extensionReportGraceSeconds) * 1_000;

    // Act: the link heals; nobody re-sends on their own before the gate decides
    ok(await gc.gate.setFaults({}));
    await gc.clock.advanceTo(decidedAt - 1);
    const beforeDeadline = ok(await gc.gate.getJob(job.jobId));
    await gc.clock.advanceTo(decidedAt);
    const ended = ok(await gc.gate.getJob(job.jobId));

    // Assess: the lost status was asked for again when the gate decided, and answered at once.
    expect(completed).toEqual(['COMPLETED', 'COMPLETED', 'COMPLETED']);
    expect(apFinal).toBe(true);
    expect(beforeDeadline.datacenters['ap-southeast-2']?.status).toBe('running');
    expect(ended).toMatchObject({ status: 'COMPLETED', globallyTimedOut: false });
    expect(ended.withdrawnTimeoutReason).toBe('timeout');
    expect(REGIONS.map((region) => ended.datacenters[region]?.status)).toEqual(['completed', 'completed', 'completed']);
  });
});
