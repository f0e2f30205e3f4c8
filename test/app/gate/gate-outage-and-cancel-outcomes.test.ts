import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DynamoGateStore } from '../../../shared/adapters/aws/dynamo-gate-store.js';
import { cancelGateJob } from '../../../shared/app/gate/cancel-gate-job.js';
import { fireGateTimer } from '../../../shared/app/gate/fire-gate-timer.js';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { getGateJob } from '../../../shared/app/gate/get-gate-job.js';
import { onManagerReport } from '../../../shared/app/gate/on-manager-report.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { sweepGateTimers } from '../../../shared/app/gate/sweep-gate-timers.js';
import { onGateDecision } from '../../../shared/app/on-gate-decision.js';
import { completeWorkflow } from '../../../shared/app/complete-workflow.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { parseGateDecision } from '../../../functions/events/on-gate-decision.js';
import { parseReport } from '../../../functions/gate-events/on-manager-report.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { at, GATE_REGION, T0 } from '../../support/fixtures.js';
import { ManualClock, RecordingBus, RecordingTelemetry, RecordingTimers } from '../support/recording-ports.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';
import { TestRegions } from '../support/test-regions.js';

const GRACE_SECONDS = defaultGatePolicy.extensionReportGraceSeconds;
const MANAGER_REPORTS = ['JobProgressReport', 'JobTimeoutReport', 'JobLeaderTransfer', 'JobFinalStatus'];

/**
 * Review findings: a gate back from a long outage gave up re-sending without asking once, and showed
 * RUNNING forever; a cancel that reached regions after they completed left the job CANCELLED; a cancel
 * refused during an unconfirmed timeout called a job TIMED_OUT that then completed everywhere.
 * One gate and two real region managers on dynalite, one injected clock; events move only when a
 * test pumps them, so the test decides what is delivered, lost or late.
 */
describe('the gate after outages and late cancels (dynalite)', () => {
  let dynamo: TestDynamo;
  let managers: Map<string, TestManager>;
  let gate: GateDeps;
  let gateBus: RecordingBus;
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
      const m = await testManager(dynamo);
      m.deps.clock = clock;
      m.deps.region = region;
      m.deps.managerId = `${region}/test-manager`;
      managers.set(region, m);
    }
    gateBus = new RecordingBus();
    delivered.clear();
    gate = {
      gateRegion: GATE_REGION,
      gates: new DynamoGateStore(dynamo.doc, await dynamo.table(false), () => clock.now()),
      regions: new TestRegions(managers),
      timers: new RecordingTimers(),
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

  /** Regions → gate: delivers the reports published since the last call (or drops them: lost). */
  async function regionsToGate(lose = false): Promise<number> {
    let moved = 0;
    for (const m of managers.values()) {
      const from = delivered.get(m.bus) ?? 0;
      const events = m.bus.published.slice(from);
      delivered.set(m.bus, m.bus.published.length);
      for (const event of events) {
        if (!MANAGER_REPORTS.includes(event.detailType)) continue;
        moved++;
        if (!lose) await onManagerReport(gate, parseReport({ 'detail-type': event.detailType, detail: event.detail }));
      }
    }
    return moved;
  }

  /** Gate → regions: delivers the decisions published since the last call (or drops them). */
  async function gateToRegions(lose = false): Promise<number> {
    const from = delivered.get(gateBus) ?? 0;
    const decisions = gateBus.published.slice(from);
    delivered.set(gateBus, gateBus.published.length);
    for (const event of decisions) {
      if (lose) continue;
      const decision = parseGateDecision({ 'detail-type': event.detailType, detail: event.detail });
      const target = managers.get(decision.detail.region);
      if (target) await onGateDecision(target.deps, decision);
    }
    return decisions.length;
  }

  /** Both ways until nothing moves. */
  async function pump(): Promise<void> {
    for (let moved = 1; moved > 0; ) moved = (await regionsToGate()) + (await gateToRegions());
  }

  /** Fires the gate job's current wake-up at `now`. */
  async function fireGate(jobId: string, now: number): Promise<void> {
    const job = await gateJob(jobId);
    clock.set(now);
    await fireGateTimer(gate, { scope: 'gate', jobId, fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt ?? now });
  }

  async function submitTwoRegions(jobId: string, timeoutSeconds = 60) {
    const submitted = await submitGateJob(gate, {
      jobId,
      timeoutSeconds,
      datacenters: {
        'us-east-1': { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
        'eu-west-1': { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
      },
    });
    const token = (region: string) => submitted.view.datacenters[region]?.workflows[0]?.token ?? '';
    return { token };
  }

  it('after a gate outage longer than the re-send give-up, the gate still learns how every region ended its global timeout', async () => {
    // Prepare: the global deadline passes (nobody heard from the workers); the gate declares and its
    // first broadcast reaches both regions, which end TIMED_OUT global_timeout.
    await submitTwoRegions('outage-give-up');
    await pump();
    await fireGate('outage-give-up', at(60 + GRACE_SECONDS));
    expect((await gateJob('outage-give-up')).globallyTimedOut).toBe(true);
    await gateToRegions();
    for (const region of managers.keys()) expect((await manager(region).getJob('outage-give-up')).status).toBe('TIMED_OUT');

    // Act: right then the gate goes down for 2 hours; the regions' final statuses reach it while it is
    // down and are lost (EventBridge's async retries of on-manager-report run out within minutes, as the
    // local cloud drops what arrives at a severed gate). The gate comes back; its overdue wake-up fires.
    await regionsToGate(true);
    clock.set(at(60 + GRACE_SECONDS + 2 * 3600));
    await sweepGateTimers(gate);
    await pump();
    // Anything else the gate does on its own later.
    clock.set(at(60 + GRACE_SECONDS + 3 * 3600));
    await sweepGateTimers(gate);
    await pump();

    // Assess: every region ended TIMED_OUT; the gate must say so, not RUNNING forever.
    const view = await getGateJob(gate, 'outage-give-up');
    expect(view.datacenters['us-east-1']?.status).toBe('timed_out');
    expect(view.datacenters['eu-west-1']?.status).toBe('timed_out');
    expect(view.status).toBe('TIMED_OUT');
  });

  it('a gate cancel that reaches regions only after each completed leaves the job COMPLETED, not CANCELLED', async () => {
    // Prepare: both workers complete; their final statuses are still on the way to the gate.
    const { token } = await submitTwoRegions('cancel-after-done');
    await pump();
    clock.set(at(5));
    for (const region of managers.keys()) {
      const workflowId = region === 'us-east-1' ? 'wf-us' : 'wf-eu';
      const workerId = region === 'us-east-1' ? 'worker-us' : 'worker-eu';
      await completeWorkflow(manager(region).deps, { jobId: 'cancel-after-done', workflowId, workerId, outcome: 'completed', token: token(region) });
      expect((await manager(region).getJob('cancel-after-done')).status).toBe('COMPLETED');
    }

    // Act: the user cancels through the gate before it heard; then the final statuses arrive, and the
    // cancel reaches the regions, which answer with how they ended.
    await cancelGateJob(gate, 'cancel-after-done', 'no longer needed');
    await pump();

    // Assess: nothing was cancelled anywhere; every region COMPLETED.
    for (const region of managers.keys()) expect((await manager(region).getJob('cancel-after-done')).status).toBe('COMPLETED');
    const view = await getGateJob(gate, 'cancel-after-done');
    expect(view.datacenters['us-east-1']?.status).toBe('completed');
    expect(view.datacenters['eu-west-1']?.status).toBe('completed');
    expect(view.status).toBe('COMPLETED');
  });

  it('a cancel refused while a declared timeout is unconfirmed does not call a job TIMED_OUT that then completes everywhere', async () => {
    // Prepare: both workers complete, their final statuses lost; the gate declares its deadline.
    const { token } = await submitTwoRegions('cancel-unconfirmed');
    await pump();
    clock.set(at(5));
    for (const region of managers.keys()) {
      const workflowId = region === 'us-east-1' ? 'wf-us' : 'wf-eu';
      const workerId = region === 'us-east-1' ? 'worker-us' : 'worker-eu';
      await completeWorkflow(manager(region).deps, { jobId: 'cancel-unconfirmed', workflowId, workerId, outcome: 'completed', token: token(region) });
    }
    await regionsToGate(true);
    await fireGate('cancel-unconfirmed', at(60 + GRACE_SECONDS));
    const before = await getGateJob(gate, 'cancel-unconfirmed');

    // Act
    const cancel = await cancelGateJob(gate, 'cancel-unconfirmed', undefined).then(
      (answer) => ({ answer }),
      (error: Error) => ({ error: error.message }),
    );
    await pump();
    const after = await getGateJob(gate, 'cancel-unconfirmed');

    // Assess: the gate showed RUNNING, the job ends COMPLETED everywhere; no answer may have said TIMED_OUT.
    expect(before.status).toBe('RUNNING');
    expect(after.status).toBe('COMPLETED');
    expect(JSON.stringify(cancel)).not.toContain('TIMED_OUT');
  });
});
