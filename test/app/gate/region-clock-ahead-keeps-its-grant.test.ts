import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;
const EU = 'eu-west-1';
/** The region's clock reads this much ahead of the gate's (true time = the gate's clock here). */
const REGION_AHEAD_MS = 12_000;

/**
 * Whether the gate holds a region's final extension total (`extensionsMayBeUnheard`) compares the
 * region's report time (`dcLastReportAt`, the region's clock) with that region's deadline; the gate
 * counts that deadline from the region's start as its acceptance gave it (`dcStartedAt`, also the
 * region's clock), not from its own `submittedAt`. So a region whose clock runs ahead of the gate's,
 * by more than the time left before its deadline at its last heard report, still has a report sent
 * before its deadline read as sent before it: a gate back from an outage waits one more grace for the
 * reports instead of taking the stale total as final and cutting short a grant the region made while
 * it was down. Same scenario as gate-outage-extension.test.ts, with the skew; review finding F3 (time, low).
 */
describe('a gate back from an outage, a region whose clock runs ahead of the gate’s (dynalite)', () => {
  const w = useGateWorld();

  /** Fires the region job's current wake-up at its due time (region clock); what it sends goes to a gate that is down (lost) or up. */
  async function fireRegion(jobId: string, gateDown: boolean): Promise<void> {
    const m = w.manager(EU);
    const timer = m.timers.expectArmed(jobId);
    w.clock.set(timer.dueAt - REGION_AHEAD_MS);
    await fireJobTimer(m.deps, timer);
    await w.regionsToGate(gateDown);
    await w.gateToRegions();
  }

  it('does not time the job out before the deadline its region extended while the gate was down', async () => {
    // Prepare: the region reads the gate's clock + 12 s; one region, 60 s job
    w.manager(EU).deps.clock = { now: () => w.clock.now() + REGION_AHEAD_MS };
    const submitted = await submitGateJob(w.gate, {
      jobId: 'skew-ext',
      timeoutSeconds: 60,
      datacenters: { [EU]: { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters[EU]?.workflows[0]?.token ?? '';
    await w.pump();
    for (let i = 0; i < 5; i++) await fireRegion('skew-ext', false);
    expect(w.clock.now()).toBe(at(50));

    // Act: the gate is down from 52 s to 74 s (true time). At 55 s the worker is granted 30 s: the
    // region's deadline is then 90 s. The gate is back at 75 s, when its wake-up comes.
    w.clock.set(at(55));
    const answer = await requestExtension(w.manager(EU).deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    await w.regionsToGate(true);
    while (w.clock.now() < at(70)) await fireRegion('skew-ext', true);
    await w.fireGate('skew-ext', at(60 + GRACE_SECONDS));
    await w.gateToRegions();

    // Assess: the region's grant holds to 90 s (true time); nothing may end the job at 75 s
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    const regionJob = await w.manager(EU).getJob('skew-ext');
    expect(effectiveDeadline(regionJob.tracking) - REGION_AHEAD_MS).toBe(at(90));
    expect({ gateTimedOut: (await w.gateJob('skew-ext')).globallyTimedOut, regionStatus: regionJob.status, regionReason: regionJob.tracking.timeoutReason }).toEqual({
      gateTimedOut: false,
      regionStatus: 'RUNNING',
      regionReason: undefined,
    });
  });
});
