import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoGateStore } from '../../../shared/adapters/aws/dynamo-gate-store.js';
import { fireGateTimer } from '../../../shared/app/gate/fire-gate-timer.js';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { onManagerReport } from '../../../shared/app/gate/on-manager-report.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { onGateDecision } from '../../../shared/app/on-gate-decision.js';
import { requestExtension } from '../../../shared/app/request-extension.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { parseGateDecision } from '../../../functions/events/on-gate-decision.js';
import { parseReport } from '../../../functions/gate-events/on-manager-report.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { at, GATE_REGION, T0 } from '../../support/fixtures.js';
import { ManualClock, RecordingBus, RecordingTelemetry, RecordingTimers } from '../support/recording-ports.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';
import { TestRegions } from '../support/test-regions.js';
import { InterleavingJobStore } from '../support/interleaving-job-store.js';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;

/**
 * A region's extensions move the gate's global deadline only once the gate hears of them (AD-34
 * Part 8). One gate and real region managers, each on dynalite; events move between them only when
 * a test pumps them, so a test controls exactly what is delivered, lost or late.
 */
describe('extension reports reach the gate before its global timeout (dynalite)', () => {
  let dynamo: TestDynamo;
  let managers: Map<string, TestManager>;
  let gate: GateDeps;
  let gateBus: RecordingBus;
  let gateTimers: RecordingTimers;
  let clock: ManualClock;
  const delivered = new Map<RecordingBus, number>();

  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    clock = new ManualClock(T0);
    managers = new Map();
    for (const region of ['us-east-1', 'eu-west-1']) {
      const m = await testManager(dynamo, { store: (doc, table) => new InterleavingJobStore(doc, table) });
      // One clock for every party, and each manager in its own region.
      m.deps.clock = clock;
      m.deps.region = region;
      m.deps.managerId = `${region}/test-manager`;
      managers.set(region, m);
    }
    gateBus = new RecordingBus();
    gateTimers = new RecordingTimers();
    delivered.clear();
    gate = {
      gateRegion: GATE_REGION,
      gates: new DynamoGateStore(dynamo.doc, await dynamo.table(false), () => clock.now()),
      regions: new TestRegions(managers),
      timers: gateTimers,
      bus: gateBus,
      clock,
      policy: defaultGatePolicy,
      telemetry: new RecordingTelemetry(),
    };
  });

  const manager = (region: string): TestManager => {
    const m = managers.get(region);
    if (!m) throw new Error(`no manager for ${region}`);
    return m;
  };
  const gateJob = async (jobId: string): Promise<GateJob> => {
    const job = await gate.gates.get(jobId);
    if (!job) throw new Error(`gate job ${jobId} not stored`);
    return job;
  };

  /** Delivers every event published since the last pump: regions → gate, gate → regions. */
  async function pump(): Promise<void> {
    for (let moved = true; moved; ) {
      moved = false;
      for (const m of managers.values()) {
        const from = delivered.get(m.bus) ?? 0;
        const events = m.bus.published.slice(from);
        delivered.set(m.bus, m.bus.published.length);
        for (const event of events) {
          if (!['JobProgressReport', 'JobTimeoutReport', 'JobLeaderTransfer', 'JobFinalStatus'].includes(event.detailType)) continue;
          moved = true;
          await onManagerReport(gate, parseReport({ 'detail-type': event.detailType, detail: event.detail }));
        }
      }
      const from = delivered.get(gateBus) ?? 0;
      const decisions = gateBus.published.slice(from);
      delivered.set(gateBus, gateBus.published.length);
      for (const event of decisions) {
        moved = true;
        const decision = parseGateDecision({ 'detail-type': event.detailType, detail: event.detail });
        const target = managers.get(decision.detail.region);
        if (target) await onGateDecision(target.deps, decision);
      }
    }
  }

  /** Fires the gate job's current wake-up at `now`. */
  async function fireGate(jobId: string, now: number): Promise<void> {
    const job = await gateJob(jobId);
    clock.set(now);
    await fireGateTimer(gate, { scope: 'gate', jobId, fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt ?? now });
  }

  /** Fires a region job's current wake-up at its due time and delivers what it sent. */
  async function fireRegion(region: string, jobId: string): Promise<void> {
    const m = manager(region);
    const timer = m.timers.expectArmed(jobId);
    clock.set(timer.dueAt);
    await fireJobTimer(m.deps, timer);
    await pump();
  }

  it('an extension whose report to the gate is lost still moves the global deadline: the next periodic report lands within the report grace', async () => {
    // Prepare: one region, global deadline at 55 s; the periodic reports at 10–50 s delivered.
    const submitted = await submitGateJob(gate, {
      jobId: 'ext-lost',
      timeoutSeconds: 55,
      datacenters: { 'eu-west-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters['eu-west-1']?.workflows[0]?.token ?? '';
    await pump();
    const eu = manager('eu-west-1');
    for (let i = 0; i < 5; i++) await fireRegion('eu-west-1', 'ext-lost');
    expect(clock.now()).toBe(at(50));

    // Act: at 52 s the worker is granted 30 s; the job write lands, the report that tells the gate does
    // not. The region's next periodic report (60 s) carries the total; then the gate's wake-up comes.
    clock.set(at(52));
    eu.bus.failNextPublishes(1);
    const answer = await requestExtension(eu.deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    await pump();
    // The wake-up armed for the old deadline (55 s) finds it moved and re-arms for the report at 60 s.
    while (clock.now() < at(60)) await fireRegion('eu-west-1', 'ext-lost');
    const due = (await gateJob('ext-lost')).timerDueAt;
    await fireGate('ext-lost', due ?? 0);
    await pump();

    // Assess: the region's job legitimately runs to 85 s, and the gate waits for it (plus the grace).
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    expect(due).toBe(at(55 + GRACE_SECONDS));
    const regionJob = await eu.getJob('ext-lost');
    expect(effectiveDeadline(regionJob.tracking)).toBe(at(85));
    expect(regionJob.status).toBe('RUNNING');
    const decided = await gateJob('ext-lost');
    expect(decided.globallyTimedOut).toBe(false);
    expect(decided.timerDueAt).toBe(at(85 + GRACE_SECONDS));
  });

  it("an extension whose job write lost a race to the periodic report still reaches the gate's deadline (its report is not dated before the write)", async () => {
    // Prepare: one region, global deadline at 55 s; periodic reports at 10–40 s delivered.
    const submitted = await submitGateJob(gate, {
      jobId: 'ext-race',
      timeoutSeconds: 55,
      datacenters: { 'eu-west-1': { workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] } },
    });
    const token = submitted.view.datacenters['eu-west-1']?.workflows[0]?.token ?? '';
    await pump();
    const eu = manager('eu-west-1');
    for (let i = 0; i < 4; i++) await fireRegion('eu-west-1', 'ext-race');
    expect(clock.now()).toBe(at(40));

    // Act: the worker asks at 49.9 s; while its grant is being applied, the 50 s report wake-up
    // (decided on the job before the grant) writes first. The grant's write retries and lands.
    clock.set(at(49.9));
    (eu.jobs as InterleavingJobStore).beforeNextSave(async () => {
      clock.set(at(50));
      await fireJobTimer(eu.deps, eu.timers.expectArmed('ext-race'));
    });
    const answer = await requestExtension(eu.deps, { workerId: 'worker-a', token, currentProgress: 0.5 });
    await pump();
    await fireGate('ext-race', at(55 + GRACE_SECONDS));
    await pump();

    // Assess: the region's job legitimately runs to 85 s; the gate must not end it before.
    expect(answer).toMatchObject({ granted: true, extensionSeconds: 30 });
    const regionJob = await eu.getJob('ext-race');
    expect(effectiveDeadline(regionJob.tracking)).toBe(at(85));
    expect((await gateJob('ext-race')).dcTotalExtensions['eu-west-1']).toBe(30);
    expect((await gateJob('ext-race')).globallyTimedOut).toBe(false);
  });
});
