import { describe, expect, it } from 'vitest';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;
const EU = 'eu-west-1';

/**
 * Gate × AD-26: the gate decides condition 1 (global deadline + largest regional extension
 * total) on its own clock. A gate that was down while a region granted an extension has not heard of
 * the grant when it comes back, and its wake-up fires before the region's next periodic report: it waits
 * one more grace for the reports (on-gate-timer-fired.ts) instead of cutting the grant short.
 */
describe('a gate back from a short outage and an extension granted while it was down (dynalite)', () => {
  const w = useGateWorld();


  it('the gate does not time a job out before the extended deadline its region granted while the gate was down', async () => {
    // Prepare: one region, 60 s job; the periodic reports at 10–50 s reach the gate.
    const submitted = await submitGateJob(w.gate, {
      jobId: 'outage-ext',
      timeoutSeconds: 60,
      datacenters: { [EU]: { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters[EU]?.workflows[0]?.token ?? '';
    await w.pump();
    for (let i = 0; i < 5; i++) await w.fireRegion(EU, 'outage-ext', false);
    expect(w.clock.now()).toBe(at(50));

    // Act: the gate is down from 52 s to 74 s (22 s). At 55 s the worker, making progress, is granted
    // 30 s: the region's deadline is now 90 s. The grant's immediate report and the periodic reports of
    // 60 s and 70 s reach a gate that hears nothing. The gate is back at 75 s, when its own wake-up
    // (armed for the global deadline + the report grace: 60 + 15 = 75 s) arrives.
    w.clock.set(at(55));
    const answer = await requestExtension(w.manager(EU).deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    await w.regionsToGate(true);
    while (w.clock.now() < at(70)) await w.fireRegion(EU, 'outage-ext', true);
    const gateDue = (await w.gateJob('outage-ext')).timerDueAt;
    await w.fireGate('outage-ext', at(60 + GRACE_SECONDS));
    await w.gateToRegions();

    // Assess: the region legitimately runs to 90 s (60 + 30: its documented deadlineAt). The gate's
    // rule is "global deadline plus the largest regional extension total" (contract, README) — the
    // region's total is 30 s — so nothing may end the job at 75 s.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(gateDue).toBe(at(60 + GRACE_SECONDS));
    const regionJob = await w.manager(EU).getJob('outage-ext');
    expect(effectiveDeadline(regionJob.tracking)).toBe(at(90));
    expect({ gateTimedOut: (await w.gateJob('outage-ext')).globallyTimedOut, regionStatus: regionJob.status, regionReason: regionJob.tracking.timeoutReason }).toEqual({
      gateTimedOut: false,
      regionStatus: 'RUNNING',
      regionReason: undefined,
    });
  });
});
