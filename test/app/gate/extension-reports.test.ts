import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { at } from '../../support/fixtures.js';
import { useGateWorld } from '../support/gate-world.js';
import { InterleavingJobStore } from '../support/interleaving-job-store.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;

/**
 * A region's extensions move the gate's global deadline only once the gate hears of them (AD-34
 * Part 8). One gate and real region managers, each on dynalite; events move between them only when
 * a test pumps them, so a test controls exactly what is delivered, lost or late.
 */
describe('extension reports reach the gate before its global timeout (dynalite)', () => {
  const w = useGateWorld({ store: (doc, table) => new InterleavingJobStore(doc, table) });

  /** Fires a region job's current wake-up at its due time and delivers what it sent. */
  async function fireRegion(region: string, jobId: string): Promise<void> {
    const m = w.manager(region);
    const timer = m.timers.expectArmed(jobId);
    w.clock.set(timer.dueAt);
    await fireJobTimer(m.deps, timer);
    await w.pump();
  }

  it('an extension whose report to the gate is lost still moves the global deadline: the next periodic report lands within the report grace', async () => {
    // Prepare: one region, global deadline at 55 s; the periodic reports at 10–50 s delivered.
    const submitted = await submitGateJob(w.gate, {
      jobId: 'ext-lost',
      timeoutSeconds: 55,
      datacenters: { 'eu-west-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters['eu-west-1']?.workflows[0]?.token ?? '';
    await w.pump();
    const eu = w.manager('eu-west-1');
    for (let i = 0; i < 5; i++) await fireRegion('eu-west-1', 'ext-lost');
    expect(w.clock.now()).toBe(at(50));

    // Act: at 52 s the worker is granted 30 s; the job write lands, the report that tells the gate does
    // not. The region's next periodic report (60 s) carries the total; then the gate's wake-up comes.
    w.clock.set(at(52));
    eu.bus.failNextPublishes(1);
    const answer = await requestExtension(eu.deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    await w.pump();
    // The wake-up armed for the old deadline (55 s) finds it moved and re-arms for the report at 60 s.
    while (w.clock.now() < at(60)) await fireRegion('eu-west-1', 'ext-lost');
    const due = (await w.gateJob('ext-lost')).timerDueAt;
    await w.fireGate('ext-lost', due ?? 0);
    await w.pump();

    // Assess: the region's job legitimately runs to 85 s, and the gate waits for it (plus the grace).
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(due).toBe(at(55 + GRACE_SECONDS));
    const regionJob = await eu.getJob('ext-lost');
    expect(effectiveDeadline(regionJob.tracking)).toBe(at(85));
    expect(regionJob.status).toBe('RUNNING');
    const decided = await w.gateJob('ext-lost');
    expect(decided.globallyTimedOut).toBe(false);
    expect(decided.timerDueAt).toBe(at(85 + GRACE_SECONDS));
  });

  it("an extension whose job write lost a race to the periodic report still reaches the gate's deadline (its report is not dated before the write)", async () => {
    // Prepare: one region, global deadline at 55 s; periodic reports at 10–40 s delivered.
    const submitted = await submitGateJob(w.gate, {
      jobId: 'ext-race',
      timeoutSeconds: 55,
      datacenters: { 'eu-west-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters['eu-west-1']?.workflows[0]?.token ?? '';
    await w.pump();
    const eu = w.manager('eu-west-1');
    for (let i = 0; i < 4; i++) await fireRegion('eu-west-1', 'ext-race');
    expect(w.clock.now()).toBe(at(40));

    // Act: the worker asks at 49.9 s; while its grant is being applied, the 50 s report wake-up
    // (decided on the job before the grant) writes first. The grant's write retries and lands.
    w.clock.set(at(49.9));
    (eu.jobs as InterleavingJobStore).beforeNextSave(async () => {
      w.clock.set(at(50));
      await fireJobTimer(eu.deps, eu.timers.expectArmed('ext-race'));
    });
    const answer = await requestExtension(eu.deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    await w.pump();
    await w.fireGate('ext-race', at(55 + GRACE_SECONDS));
    await w.pump();

    // Assess: the region's job legitimately runs to 85 s; the gate must not end it before.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    const regionJob = await eu.getJob('ext-race');
    expect(effectiveDeadline(regionJob.tracking)).toBe(at(85));
    expect((await w.gateJob('ext-race')).dcTotalExtensions['eu-west-1']).toBe(30);
    expect((await w.gateJob('ext-race')).globallyTimedOut).toBe(false);
  });
});
