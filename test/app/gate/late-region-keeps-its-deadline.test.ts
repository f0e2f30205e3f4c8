import { describe, expect, it } from 'vitest';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { reportProgress } from '../../../shared/app/report-progress.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { UpstreamUnavailableError } from '../../../shared/domain/errors.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';
import type { TestRegions } from '../support/test-regions.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;
const EU = 'eu-west-1';

/**
 * A region that accepts the job late measures its deadline from then (submit-job.ts: `startedAt`), and
 * tells its workers so (`deadlineAt`). The contract's own recovery for a region that did not answer the
 * fan-out ("Resend the same body with jobId … to retry") starts it late with no clock skew at all, and
 * so does a slow cold start. The gate counts that region's deadline from the start its acceptance
 * gave (the answer's `deadlineAt` less the timeout; global-deadline.ts `regionStartedAt`), not from
 * its own `submittedAt`, so:
 * 1. it does not end the late region's job (global_timeout) before the `deadlineAt` its workers were told;
 * 2. a report the late region sent before its own deadline does not read to it as sent after it, so a
 *    gate back from an outage does not take a stale extension total as final and cut short a grant the
 *    region made while it was down (what gate-outage-extension.test.ts proves for a region on time).
 * Review finding F3 (time).
 */
describe('a gate job whose region accepted it late (the fan-out resent after that region did not answer)', () => {
  const w = useGateWorld();


  /** Submits at 0 s with EU unreachable, then resends the same body at `lateSeconds`: EU accepts then. */
  async function submitLate(jobId: string, lateSeconds: number) {
    const body = { jobId, timeoutSeconds: 60, datacenters: { [EU]: { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } } };
    const regions = w.gate.regions as TestRegions;
    regions.unreachable.add(EU);
    await expect(submitGateJob(w.gate, body)).rejects.toBeInstanceOf(UpstreamUnavailableError);
    regions.unreachable.clear();
    w.clock.set(at(lateSeconds));
    const submitted = await submitGateJob(w.gate, body);
    await w.pump();
    return submitted.view.datacenters[EU]?.workflows[0]?.token ?? '';
  }

  it('does not end the region’s job before the deadline that region gave its worker (no extension, no outage)', async () => {
    // Prepare: EU accepts the 60 s job 30 s after the gate recorded it; its worker keeps reporting progress
    const token = await submitLate('late-1', 30);
    const report = (progress: number) => reportProgress(w.manager(EU).deps, { jobId: 'late-1', workflowId: 'wf-1', workerId: 'worker-a', token, progress });
    let told = Date.parse((await report(0.1)).deadlineAt);
    // Act: time runs to 100 s with the region's wake-ups and the gate's, all delivered; the worker reports after each
    for (let p = 0.2; w.clock.now() < at(100) && (await w.manager(EU).getJob('late-1')).status === 'RUNNING'; p += 0.05) {
      await w.fireRegion(EU, 'late-1', false);
      const gateDue = (await w.gateJob('late-1')).timerDueAt;
      if (gateDue !== undefined && gateDue <= w.clock.now()) await w.fireGate('late-1', w.clock.now());
      await w.pump();
      const answer = await report(Math.min(p, 0.9));
      if (!answer.cancel) told = Date.parse(answer.deadlineAt);
    }
    // Assess: the job may end, but not before the deadline its worker was last told (the contract's `deadlineAt`)
    const regionJob = await w.manager(EU).getJob('late-1');
    const endedAt = regionJob.status === 'RUNNING' ? Infinity : (regionJob.finishedAt ?? 0);
    expect({ endedAt: endedAt === Infinity ? 'running' : new Date(endedAt).toISOString(), reason: regionJob.tracking.timeoutReason, endedBeforeToldDeadline: endedAt < told }, `worker told deadlineAt ${new Date(told).toISOString()}, job ended ${endedAt === Infinity ? 'no' : new Date(endedAt).toISOString()} (${regionJob.tracking.timeoutReason ?? ''})`).toMatchObject({
      endedBeforeToldDeadline: false,
    });
  });

  it('does not cut short an extension the late region granted while the gate was down', async () => {
    // Prepare: EU accepts the 60 s job 12 s late (its deadline is 72 s); its reports of 22–62 s reach the gate
    const token = await submitLate('late-2', 12);
    while (w.clock.now() < at(62)) await w.fireRegion(EU, 'late-2', false);
    expect(w.clock.now()).toBe(at(62));

    // Act: the gate is down from 63 s to 74 s. At 65 s the worker is granted 30 s: EU's deadline is
    // then 102 s. The gate is back at 75 s, when its wake-up (60 + 15 s) comes.
    w.clock.set(at(65));
    const answer = await requestExtension(w.manager(EU).deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    // The worker asks its job's deadline after a grant, as the SDK does
    const told = Date.parse((await reportProgress(w.manager(EU).deps, { jobId: 'late-2', workflowId: 'wf-1', workerId: 'worker-a', token, progress: 0.5 })).deadlineAt);
    await w.regionsToGate(true);
    while (w.clock.now() < at(72)) await w.fireRegion(EU, 'late-2', true);
    await w.fireGate('late-2', at(60 + GRACE_SECONDS));
    await w.gateToRegions();

    // Assess: the grant holds (EU's deadline is 102 s, and its worker was told so); nothing may end the job at 75 s
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    const regionJob = await w.manager(EU).getJob('late-2');
    expect(effectiveDeadline(regionJob.tracking)).toBe(at(102));
    const endedAt = regionJob.status === 'RUNNING' ? Infinity : (regionJob.finishedAt ?? 0);
    expect(
      { status: regionJob.status, reason: regionJob.tracking.timeoutReason, endedBeforeToldDeadline: endedAt < told },
      `worker told deadlineAt ${new Date(told).toISOString()}, job ended ${Number.isFinite(endedAt) ? new Date(endedAt).toISOString() : 'no'}`,
    ).toMatchObject({ endedBeforeToldDeadline: false });
  });
});
