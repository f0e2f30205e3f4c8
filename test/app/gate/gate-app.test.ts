import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { decideAndSave, MAX_DECIDE_ATTEMPTS, type VersionedStore } from '../../../shared/app/decide-and-save.js';
import { gateStateStore } from '../../../shared/app/gate/decide-gate-job.js';
import { fireGateTimer } from '../../../shared/app/gate/fire-gate-timer.js';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { submitGateJob } from '../../../shared/app/gate/submit-gate-job.js';
import { sweepGateTimers } from '../../../shared/app/gate/sweep-gate-timers.js';
import { RegionRefusedError, UpstreamUnavailableError } from '../../../shared/domain/errors.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { VersionConflictError } from '../../../shared/ports/job-store.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { at, GATE_REGION, T0 } from '../../support/fixtures.js';
import { ManualClock, RecordingBus } from '../support/recording-ports.js';
import { testManager, type TestDynamo, type TestManager } from '../support/test-manager.js';
import { testGateDeps } from '../support/test-gate-deps.js';
import { REGIONS, TestRegions } from '../support/test-regions.js';

/** The gate's app layer, on dynalite, with an injected clock. */
describe('the gate app layer (dynalite)', () => {
  let dynamo: TestDynamo;
  let managers: Map<string, TestManager>;
  let regions: TestRegions;
  let deps: GateDeps;
  let clock: ManualClock;
  let bus: RecordingBus;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    managers = new Map();
    for (const region of REGIONS) managers.set(region, await testManager(dynamo));
    regions = new TestRegions(managers);
    clock = new ManualClock(T0);
    bus = new RecordingBus();
    deps = testGateDeps(dynamo, await dynamo.table(false), regions, clock, { bus });
  });

  const body = {
    jobId: 'job-1',
    timeoutSeconds: 60,
    datacenters: {
      'us-east-1': { workflows: [{ workflowId: 'wf-us', workerId: 'worker-us' }] },
      'eu-west-1': { workflows: [{ workflowId: 'wf-eu', workerId: 'worker-eu' }] },
    },
  };
  const stored = async (): Promise<GateJob> => {
    const job = await deps.gates.get('job-1');
    if (!job) throw new Error('gate job not stored');
    return job;
  };

  it('fan-out partial failure: an unreachable region → 503; the same body again submits it there (201: the caller had not seen it accepted), the other region keeps its job', async () => {
    // Prepare
    regions.unreachable.add('eu-west-1');
    const first = submitGateJob(deps, body);
    await expect(first).rejects.toBeInstanceOf(UpstreamUnavailableError);
    const usJob = await managers.get('us-east-1')?.getJob('job-1');
    regions.unreachable.clear();

    // Act
    const resent = await submitGateJob(deps, body);

    // Assess
    expect(resent.created).toBe(true);
    expect((await submitGateJob(deps, body)).created).toBe(false);
    expect(Object.keys(resent.view.datacenters).sort()).toEqual([...REGIONS].sort());
    expect(await managers.get('us-east-1')?.getJob('job-1')).toEqual(usJob);
    expect((await managers.get('eu-west-1')?.getJob('job-1'))?.tracking.gateRegion).toBe(GATE_REGION);
    expect((await stored()).dcStatus).toEqual({ 'us-east-1': 'running', 'eu-west-1': 'running' });
  });

  it('a refused region → region_refused; it counts as ended failed and cannot hold the job open', async () => {
    // Prepare
    regions.refusing.add('eu-west-1');

    // Act
    const answer = submitGateJob(deps, body);

    // Assess
    await expect(answer).rejects.toBeInstanceOf(RegionRefusedError);
    expect((await stored()).dcStatus).toEqual({ 'us-east-1': 'running', 'eu-west-1': 'failed' });
  });

  it('the global deadline is decided and written while the bus is down; the decision goes out once it is back', async () => {
    // Prepare
    await submitGateJob(deps, body);
    const before = await stored();
    bus.failNextPublishes(1);

    // The gate decides the 60 s global deadline only the report grace after it: an extension granted in a
    // region just before the deadline, or whose immediate report was lost and is carried by the region's
    // next periodic report (every 10 s), must reach the gate first. A region's own local timeout is not delayed.
    // No region reported here, so the gate, which may have missed a grant, waits one more grace for their reports.
    const dueAt = at(60 + defaultGatePolicy.extensionReportGraceSeconds);
    const decidedAt = dueAt + defaultGatePolicy.extensionReportGraceSeconds * 1_000;

    // Act
    clock.set(at(60));
    await fireGateTimer(deps, { scope: 'gate', jobId: 'job-1', fenceToken: before.timeoutFenceToken, dueAt: before.timerDueAt ?? 0 });
    const atDeadline = await stored();
    clock.set(dueAt);
    await fireGateTimer(deps, { scope: 'gate', jobId: 'job-1', fenceToken: before.timeoutFenceToken, dueAt: before.timerDueAt ?? 0 });
    const waiting = await stored();
    clock.set(decidedAt);
    await fireGateTimer(deps, { scope: 'gate', jobId: 'job-1', fenceToken: before.timeoutFenceToken, dueAt: decidedAt });
    const decided = await stored();
    clock.set(decidedAt + defaultGatePolicy.rebroadcastSeconds * 1_000 + 10_000);
    const { fired } = await sweepGateTimers(deps);

    // Assess
    expect(before.timerDueAt).toBe(dueAt);
    expect(atDeadline.globallyTimedOut).toBe(false);
    expect(waiting).toMatchObject({ globallyTimedOut: false, timerDueAt: decidedAt });
    expect(decided).toMatchObject({ globallyTimedOut: true, timeoutReason: 'timeout' });
    expect(fired).toBe(1);
    expect(bus.ofType('JobGlobalTimeout').map((event) => event.detail['region']).sort()).toEqual([...REGIONS].sort());
  });

  it('the gate sweep fires an overdue wake-up whose own delivery was lost', async () => {
    // Prepare
    await submitGateJob(deps, body);
    const grace = defaultGatePolicy.extensionReportGraceSeconds * 1_000;

    // Act: the first pass finds the silent regions' extensions possibly unheard and waits a grace; the next decides.
    clock.set(at(120));
    const first = await sweepGateTimers(deps);
    const waiting = await stored();
    clock.set(at(120) + grace + 10_000);
    const second = await sweepGateTimers(deps);

    // Assess
    expect(first.fired).toBe(1);
    expect(waiting).toMatchObject({ globallyTimedOut: false, timerDueAt: at(120) + grace });
    expect(second.fired).toBe(1);
    expect(await stored()).toMatchObject({ globallyTimedOut: true });
  });

  it('decideAndSave gives up after its attempts when every write loses a race, and writes nothing', async () => {
    // Prepare: every save finds that a competitor wrote first
    await submitGateJob(deps, body);
    const before = await stored();
    const real = gateStateStore(deps.gates);
    let loads = 0;
    const racing: VersionedStore<GateJob> = {
      load: (id) => ((loads += 1), real.load(id)),
      save: async () => Promise.reject(new VersionConflictError('job-1')),
      isFinished: real.isFinished,
      retryWakeUp: real.retryWakeUp,
    };

    // Act
    const answer = decideAndSave(racing, deps, 'job-1', () => clock.now(), (job) => ({ state: { ...job, cancelRequested: {} }, effects: [] }), () => new Error('missing'));

    // Assess
    await expect(answer).rejects.toBeInstanceOf(VersionConflictError);
    expect(loads).toBe(MAX_DECIDE_ATTEMPTS);
    expect(await stored()).toEqual(before);
  });

  it("at full size (10,000 workflows per region, 128-character ids) the gate's answer fits Lambda's 6 MB; each region pages the rest", async () => {
    // Prepare
    const longId = (prefix: string, i: number) => `${prefix}${String(i).padStart(6, '0')}`.padEnd(128, 'x');
    const datacenters = Object.fromEntries(
      REGIONS.map((region) => [region, { workflows: Array.from({ length: 10_000 }, (_, i) => ({ workflowId: longId(`wf-${region}-`, i), workerId: longId(`w-${region}-`, i) })) }]),
    );

    // Act
    const { view } = await submitGateJob(deps, { jobId: 'j'.repeat(128), timeoutSeconds: 600, datacenters });

    // Assess
    expect(Buffer.byteLength(JSON.stringify(view))).toBeLessThan(6 * 1024 * 1024);
    for (const region of REGIONS) {
      const entry = view.datacenters[region];
      expect(entry?.workflows).toHaveLength(1_000);
      expect(entry?.nextCursor).toBe(entry?.workflows.at(-1)?.workflowId);
    }
  }, 120_000);
});
