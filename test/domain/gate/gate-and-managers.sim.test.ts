import { describe, expect, it } from 'vitest';
import { defaultGatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { defaultTimeoutPolicy } from '../../../shared/domain/policy.js';
import { GateAndManagersSim, type Faults, type SimSetup } from './lossy-network-sim.js';
import { AP, EU, REGIONS, T0, US, seconds } from './gate-fixtures.js';

const SEEDS = Array.from({ length: 40 }, (_, i) => 1_000 + i);
const lossy: Faults = { dropRate: 0.25, duplicateRate: 0.25, maxDelayMs: seconds(4) };

const setup = (seed: number, overrides: Partial<SimSetup> = {}): SimSetup => ({
  seed,
  start: T0,
  gateRegion: US,
  regions: REGIONS,
  timeoutSeconds: 600,
  stuckThresholdSeconds: 30,
  managerPolicy: defaultTimeoutPolicy,
  gatePolicy: defaultGatePolicy,
  faults: lossy,
  ...overrides,
});

const outcomes = (sim: GateAndManagersSim) =>
  Object.fromEntries(REGIONS.map((region) => [region, [sim.job(region).status, sim.job(region).tracking.timeoutReason]]));

describe('simulation: the gate core and the manager cores over a lossy, duplicating, reordering network', () => {
  it('after a global timeout every region ends TIMED_OUT global_timeout, even when a takeover makes the first decision stale', () => {
    let staleDecisionsRejected = 0;
    for (const seed of SEEDS) {
      // Prepare: us-east-1's workers are stuck (30 s threshold), the others progress. The moment the
      // gate decides, eu-west-1 is taken over, so the decision on its way there carries a stale token.
      const sim = new GateAndManagersSim(setup(seed));
      sim.workersProgress(EU, seconds(5));
      sim.workersProgress(AP, seconds(5));
      sim.onceWhen(() => sim.gate.globallyTimedOut, () => sim.takeOver(EU));

      // Act
      const { quiet } = sim.runUntilQuiet(T0 + seconds(3_600));

      // Assess
      const context = `seed ${seed}`;
      expect(quiet, context).toBe(true);
      expect(outcomes(sim), context).toEqual({
        [US]: ['TIMED_OUT', 'global_timeout'],
        [EU]: ['TIMED_OUT', 'global_timeout'],
        [AP]: ['TIMED_OUT', 'global_timeout'],
      });
      expect(sim.job(EU).tracking.fenceToken, context).toBe(2);
      expect(sim.gate.timeoutReason, context).toBe(`dc_timeout:${US}:stuck`);
      expect(sim.gate.dcStatus, context).toEqual({ [US]: 'timed_out', [EU]: 'timed_out', [AP]: 'timed_out' });
      expect(sim.gate.timerDueAt, context).toBeUndefined();
      expect(sim.pendingTimers('gate'), context).toEqual([]);
      expect(sim.downstream.filter((e) => e.detailType === 'JobTimedOut'), context).toHaveLength(3);
      staleDecisionsRejected += sim.metrics.filter((m) => m.node === EU && m.name === 'StaleMessageRejected').length;
    }
    // The stale path was really taken, not dodged by lucky timing.
    expect(staleDecisionsRejected).toBeGreaterThan(SEEDS.length / 2);
  });

  it('with the gate down past the fallback, every region times out locally with gate_fallback; the gate catches up when back', () => {
    for (const seed of SEEDS) {
      // Prepare: a 60 s job nobody progresses on; the gate is down from 1 s to 1000 s (fallback: 300 s after the local timeout).
      const sim = new GateAndManagersSim(
        setup(seed, { timeoutSeconds: 60, stuckThresholdSeconds: 3_600, faults: { ...lossy, gateDown: { from: T0 + seconds(1), until: T0 + seconds(1_000) } } }),
      );
      const atGateRestart: Record<string, unknown> = {};
      sim.at(T0 + seconds(999), () => Object.assign(atGateRestart, outcomes(sim)));

      // Act
      const { quiet } = sim.runUntilQuiet(T0 + seconds(5_000));

      // Assess
      const context = `seed ${seed}`;
      expect(atGateRestart, context).toEqual({
        [US]: ['TIMED_OUT', 'gate_fallback'],
        [EU]: ['TIMED_OUT', 'gate_fallback'],
        [AP]: ['TIMED_OUT', 'gate_fallback'],
      });
      expect(quiet, context).toBe(true);
      expect(outcomes(sim), context).toEqual(atGateRestart);
      expect(sim.gate.dcStatus, context).toEqual({ [US]: 'timed_out', [EU]: 'timed_out', [AP]: 'timed_out' });
      expect(sim.pendingTimers('gate'), context).toEqual([]);
    }
  });

  it('seed 000 Scenario 2: a gate down for less than the fallback rebuilds its view from re-sent reports and times the job out everywhere', () => {
    for (const seed of SEEDS) {
      // Prepare: us-east-1 gets stuck at ~30 s while the gate is down (20 s–150 s), longer than the
      // gate's own stuck threshold would allow if it trusted its stale view.
      const sim = new GateAndManagersSim(
        setup(seed, { gatePolicy: { ...defaultGatePolicy, gateStuckThresholdSeconds: 60 }, faults: { ...lossy, gateDown: { from: T0 + seconds(20), until: T0 + seconds(150) } } }),
      );
      sim.workersProgress(EU, seconds(5));
      sim.workersProgress(AP, seconds(5));

      // Act
      const { quiet } = sim.runUntilQuiet(T0 + seconds(3_600));

      // Assess
      const context = `seed ${seed}`;
      expect(quiet, context).toBe(true);
      expect(sim.gate.decidedAt, context).toBeGreaterThanOrEqual(T0 + seconds(150));
      expect(sim.gate.timeoutReason, context).toBe(`dc_timeout:${US}:stuck`);
      expect(outcomes(sim), context).toEqual({
        [US]: ['TIMED_OUT', 'global_timeout'],
        [EU]: ['TIMED_OUT', 'global_timeout'],
        [AP]: ['TIMED_OUT', 'global_timeout'],
      });
    }
  });

  it('a job that completes everywhere leaves no timer and sends no decision', () => {
    // Prepare: the workflows complete at 40 s in every region (modelled as the manager's own completion).
    const sim = new GateAndManagersSim(setup(7, { stuckThresholdSeconds: 120 }));
    for (const region of REGIONS) sim.workersProgress(region, seconds(5));

    // Act
    sim.at(T0 + seconds(40), () => { for (const region of REGIONS) sim.complete(region); });
    const { quiet } = sim.runUntilQuiet(T0 + seconds(3_600));

    // Assess
    expect(quiet).toBe(true);
    expect(sim.gate.dcStatus).toEqual({ [US]: 'completed', [EU]: 'completed', [AP]: 'completed' });
    expect(sim.gate.globallyTimedOut).toBe(false);
    expect(sim.sentByType.get('JobGlobalTimeout')).toBeUndefined();
    expect(sim.pendingTimers('gate')).toEqual([]);
  });

  it('a cancel through the gate reaches every region through losses and ends the job CANCELLED everywhere', () => {
    for (const seed of SEEDS) {
      // Prepare
      const sim = new GateAndManagersSim(setup(seed, { stuckThresholdSeconds: 120 }));
      for (const region of REGIONS) sim.workersProgress(region, seconds(5));
      sim.at(T0 + seconds(25), () => sim.cancelAtGate('user asked'));

      // Act
      const { quiet } = sim.runUntilQuiet(T0 + seconds(3_600));

      // Assess
      const context = `seed ${seed}`;
      expect(quiet, context).toBe(true);
      for (const region of REGIONS) {
        expect(sim.job(region).status, context).toBe('CANCELLED');
        expect(sim.job(region).cancelReason, context).toBe('user asked');
      }
      expect(sim.gate.dcStatus, context).toEqual({ [US]: 'cancelled', [EU]: 'cancelled', [AP]: 'cancelled' });
      expect(sim.pendingTimers('gate'), context).toEqual([]);
    }
  });

  it("a cancel at one region reaches every region through losses, duplicates, reordering and a gate down for minutes", () => {
    let resent = 0;
    for (const seed of SEEDS) {
      // Prepare: the gate is down from 20 s to 400 s, longer than EventBridge's retries of its handler
      // (what reaches it meanwhile is lost); the user cancels at eu-west-1 at 25 s.
      const sim = new GateAndManagersSim(setup(seed, { stuckThresholdSeconds: 120, faults: { ...lossy, gateDown: { from: T0 + seconds(20), until: T0 + seconds(400) } } }));
      for (const region of REGIONS) sim.workersProgress(region, seconds(5));
      sim.at(T0 + seconds(25), () => sim.cancelInRegion(EU, 'wrong input'));

      // Act
      const { quiet } = sim.runUntilQuiet(T0 + seconds(3_600));

      // Assess: cancelled everywhere with the region's reason, well before the 600 s deadline; the
      // region stopped sending once answered, and nothing answers anything forever (quiet).
      const context = `seed ${seed}`;
      expect(quiet, context).toBe(true);
      for (const region of REGIONS) {
        expect(sim.job(region).status, context).toBe('CANCELLED');
        expect(sim.job(region).cancelReason, context).toBe('wrong input');
        expect(sim.job(region).finishedAt, context).toBeLessThan(T0 + seconds(600));
      }
      expect(sim.gate.cancelRequested, context).toEqual({ reason: 'wrong input', region: EU });
      expect(sim.gate.dcStatus, context).toEqual({ [US]: 'cancelled', [EU]: 'cancelled', [AP]: 'cancelled' });
      expect(sim.job(EU).cancelToSpread, context).toBeUndefined();
      expect(sim.pendingTimers('gate'), context).toEqual([]);
      resent += sim.sentByType.get('JobFinalStatus') ?? 0;
    }
    // The cancel was sent again while the gate was down, not carried by one lucky copy.
    expect(resent).toBeGreaterThan(SEEDS.length * 30);
  });
});
