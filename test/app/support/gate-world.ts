import { afterAll, beforeAll, beforeEach } from 'vitest';
import { parseGateDecision } from '../../../functions/events/on-gate-decision.js';
import { parseReport } from '../../../functions/gate-events/on-manager-report.js';
import { fireJobTimer } from '../../../shared/app/fire-job-timer.js';
import { fireGateTimer } from '../../../shared/app/gate/fire-gate-timer.js';
import type { GateDeps } from '../../../shared/app/gate/gate-deps.js';
import { onManagerReport } from '../../../shared/app/gate/on-manager-report.js';
import { onGateDecision } from '../../../shared/app/on-gate-decision.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { startTestDynamo } from '../../support/dynalite.js';
import { T0 } from '../../support/fixtures.js';
import { ManualClock, RecordingBus, RecordingTimers } from './recording-ports.js';
import { instantPauses } from '../../../shared/simulation/world/instant-pauses.js';
import { testManager, type TestDynamo, type TestManager, type TestManagerOptions } from './test-manager.js';
import { REGIONS, TestRegions } from './test-regions.js';
import { testGateDeps } from './test-gate-deps.js';

const MANAGER_REPORTS = ['JobProgressReport', 'JobTimeoutReport', 'JobLeaderTransfer', 'JobFinalStatus'];

/**
 * One gate and a real region manager per region, each on dynalite, all on one injected clock.
 * Events move only when a test moves them, so the test decides what is delivered, lost or late.
 */
export interface GateWorld {
  gate: GateDeps;
  gateBus: RecordingBus;
  gateTimers: RecordingTimers;
  clock: ManualClock;
  managers: Map<string, TestManager>;
  manager(region: string): TestManager;
  gateJob(jobId: string): Promise<GateJob>;
  /** Regions → gate: the reports published since the last move, delivered (or dropped: lost). */
  regionsToGate(lose?: boolean): Promise<number>;
  /** Gate → regions: the decisions published since the last move, delivered (or dropped). */
  gateToRegions(lose?: boolean): Promise<number>;
  /** Both ways until nothing moves. */
  pump(): Promise<void>;
  /** Fires the gate job's current wake-up at `now`. */
  fireGate(jobId: string, now: number): Promise<void>;
  /** Fires a region job's current wake-up at its due time; what it sends goes to a gate that is down (lost) or up. */
  fireRegion(region: string, jobId: string, gateDown?: boolean): Promise<void>;
}

/**
 * Registers the hooks of the calling describe block: one dynalite for the block, a fresh world
 * before each test. Read the returned world's fields inside tests, never at collection time.
 */
export function useGateWorld(options: TestManagerOptions = {}): GateWorld {
  let dynamo: TestDynamo;
  const delivered = new Map<RecordingBus, number>();
  const world = {} as GateWorld;
  beforeAll(async () => {
    dynamo = await startTestDynamo();
  });
  afterAll(() => dynamo.close());
  beforeEach(async () => {
    const clock = new ManualClock(T0);
    const managers = new Map<string, TestManager>();
    for (const region of REGIONS) {
      const m = await testManager(dynamo, options);
      m.deps.clock = clock;
      m.deps.region = region;
      m.deps.managerId = `${region}/test-manager`;
      managers.set(region, m);
    }
    const gateBus = new RecordingBus();
    const gateTimers = new RecordingTimers();
    delivered.clear();
    const gate = testGateDeps(dynamo, await dynamo.table(false), new TestRegions(managers), clock, { timers: gateTimers, bus: gateBus, stopwatch: instantPauses() });
    Object.assign(world, { gate, gateBus, gateTimers, clock, managers });
  });

  const unseen = (bus: RecordingBus) => {
    const events = bus.published.slice(delivered.get(bus) ?? 0);
    delivered.set(bus, bus.published.length);
    return events;
  };
  world.manager = (region) => {
    const m = world.managers.get(region);
    if (!m) throw new Error(`no manager for ${region}`);
    return m;
  };
  world.gateJob = async (jobId) => {
    const job = await world.gate.gates.get(jobId);
    if (!job) throw new Error(`gate job ${jobId} not stored`);
    return job;
  };
  world.regionsToGate = async (lose = false) => {
    let moved = 0;
    for (const m of world.managers.values()) {
      for (const event of unseen(m.bus)) {
        if (!MANAGER_REPORTS.includes(event.detailType)) continue;
        moved++;
        if (!lose) await onManagerReport(world.gate, parseReport({ 'detail-type': event.detailType, detail: event.detail }));
      }
    }
    return moved;
  };
  world.gateToRegions = async (lose = false) => {
    const decisions = unseen(world.gateBus);
    for (const event of lose ? [] : decisions) {
      const decision = parseGateDecision({ 'detail-type': event.detailType, detail: event.detail });
      const target = world.managers.get(decision.detail.region);
      if (target) await onGateDecision(target.deps, decision);
    }
    return decisions.length;
  };
  world.pump = async () => {
    for (let moved = 1; moved > 0; ) moved = (await world.regionsToGate()) + (await world.gateToRegions());
  };
  world.fireGate = async (jobId, now) => {
    const job = await world.gateJob(jobId);
    world.clock.set(now);
    await fireGateTimer(world.gate, { scope: 'gate', jobId, fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt ?? now });
  };
  world.fireRegion = async (region, jobId, gateDown = false) => {
    const m = world.manager(region);
    const timer = m.timers.expectArmed(jobId);
    world.clock.set(timer.dueAt);
    await fireJobTimer(m.deps, timer);
    await world.regionsToGate(gateDown);
    await world.gateToRegions();
  };
  return world;
}
