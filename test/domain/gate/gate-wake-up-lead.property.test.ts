import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Decision, Effect } from '../../../shared/domain/effects.js';
import { cancelGateJob } from '../../../shared/domain/gate/cancel-gate-job.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../../shared/domain/job-timer.js';
import { AP, EU, REGIONS, T0, US, finalStatus, policy, progressReport, runningGateJob, seconds, timeoutReport } from './gate-fixtures.js';

/**
 * A gate job's withdrawal says how far ahead any of its wake-ups was armed (`armedAtMostMsAhead`), so
 * the AWS adapter asks Scheduler to delete a schedule only when one may exist. The gate's wake-ups have
 * no bound of their own (the global deadline moves with grants and late starts), so the job records the
 * furthest under its decision counter (the fence token in a schedule's name; a decision withdraws the
 * wake-ups of the counter before it): sound only if no decision arms further ahead than the record it writes.
 */
const disarmsOf = (effects: readonly Effect[]) => effects.flatMap((effect) => (effect.type === 'DisarmTimer' ? [effect] : []));
/** The furthest lead of the wake-ups `effects` arm, by fence token, folded into `farthest`. */
function recordLeads(farthest: Map<number, number>, effects: readonly Effect[], now: number): void {
  for (const effect of effects) {
    if (effect.type !== 'ArmTimer') continue;
    const { fenceToken, dueAt } = effect.timer;
    farthest.set(fenceToken, Math.max(farthest.get(fenceToken) ?? -Infinity, dueAt - now));
  }
}

type Op =
  | { kind: 'accepted'; region: string; afterMs: number }
  | { kind: 'progress'; region: string; afterMs: number; totalExtensionsSeconds: number; idleMs: number }
  | { kind: 'timeout_report'; region: string; afterMs: number }
  | { kind: 'final'; region: string; afterMs: number; status: 'COMPLETED' | 'FAILED' | 'TIMED_OUT' }
  | { kind: 'cancel'; afterMs: number }
  /** The job's own wake-up, delivered up to `earlyMs` before its time (a schedule lands minutes early), or late. */
  | { kind: 'fire'; afterMs: number; earlyMs: number };

const region = fc.constantFrom(...REGIONS);
const afterMs = fc.integer({ min: 0, max: seconds(3_600) });
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('accepted' as const), region, afterMs }),
  fc.record({ kind: fc.constant('progress' as const), region, afterMs, totalExtensionsSeconds: fc.integer({ min: 0, max: 7_200 }), idleMs: fc.integer({ min: 0, max: seconds(600) }) }),
  fc.record({ kind: fc.constant('timeout_report' as const), region, afterMs }),
  fc.record({ kind: fc.constant('final' as const), region, afterMs, status: fc.constantFrom('COMPLETED' as const, 'FAILED' as const, 'TIMED_OUT' as const) }),
  fc.record({ kind: fc.constant('cancel' as const), afterMs }),
  fc.record({ kind: fc.constant('fire' as const), afterMs: fc.constant(0), earlyMs: fc.integer({ min: -seconds(600), max: seconds(300) }) }),
  fc.record({ kind: fc.constant('fire' as const), afterMs: fc.constant(0), earlyMs: fc.constant(0) }),
);

function decide(job: GateJob, step: Op, now: number): { decision: Decision<GateJob>; now: number } {
  switch (step.kind) {
    case 'accepted':
      // The region says it started now: its deadline runs from then (a late start moves the global deadline).
      return { decision: markRegionSubmitted(job, step.region, 1, { deadlineAt: now + seconds(job.timeoutSeconds) }), now };
    case 'progress': {
      const report = progressReport(step.region, { sentAt: now, lastProgressAt: now - step.idleMs, totalExtensions: step.totalExtensionsSeconds });
      return { decision: onProgressReport(job, report, now, policy), now };
    }
    case 'timeout_report':
      return { decision: onTimeoutReport(job, timeoutReport(step.region, 'stuck'), now, policy), now };
    case 'final':
      return { decision: onFinalStatus(job, finalStatus(step.region, step.status), now, policy), now };
    case 'cancel': {
      // Refused (409) once the job is decided or ended everywhere: nothing changes.
      if (job.globallyTimedOut || gateJobStatus(job) !== 'RUNNING') return { decision: { state: job, effects: [] }, now };
      return { decision: cancelGateJob(job, 'operator', now, policy), now };
    }
    case 'fire': {
      if (job.timerDueAt === undefined) return { decision: { state: job, effects: [] }, now };
      const firedAt = Math.max(now, job.timerDueAt - step.earlyMs);
      return { decision: onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt }, firedAt, policy), now: firedAt };
    }
  }
}

describe("a gate job's record of how far ahead its wake-ups were armed", () => {
  it('no decision arms a wake-up further ahead than the record it writes, and every withdrawal says at least the furthest one armed under its token (plus the allowance)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 7_200 }), fc.array(op, { minLength: 1, maxLength: 40 }), (timeoutSeconds, ops) => {
        // Prepare
        const datacenters = Object.fromEntries(REGIONS.map((name) => [name, { workflows: [] }]));
        const started = startGateJob({ jobId: 'job-1', timeoutSeconds, datacenters }, 'digest', T0, policy);
        let job = started.state;
        let now = T0;
        const farthestArmed = new Map<number, number>();
        recordLeads(farthestArmed, started.effects, now);
        // Act + Assess, after every decision
        for (const step of ops) {
          now += step.afterMs;
          const decided = decide(job, step, now);
          now = decided.now;
          const { state, effects } = decided.decision;
          recordLeads(farthestArmed, effects, now);
          expect(state.farthestWakeUpAheadMs).toBeGreaterThanOrEqual(farthestArmed.get(state.timeoutFenceToken) ?? -Infinity);
          for (const disarm of disarmsOf(effects)) {
            expect(disarm.armedAtMostMsAhead).toBeGreaterThanOrEqual((farthestArmed.get(disarm.timer.fenceToken) ?? -Infinity) + CLOCK_SKEW_ALLOWANCE_MS);
          }
          job = state;
        }
      }),
      { numRuns: 1_000 },
    );
  });
});

describe("a gate job's withdrawal says how far ahead its wake-ups were armed", () => {
  it('a 5-minute job that completes everywhere: its one wake-up, at the deadline and its grace, plus the allowance (within 15 minutes)', () => {
    // Prepare
    let job = runningGateJob(300);
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(40), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'COMPLETED'), T0 + seconds(41), policy).state;
    // Act
    const { effects } = onFinalStatus(job, finalStatus(AP, 'COMPLETED'), T0 + seconds(42), policy);
    // Assess
    expect(disarmsOf(effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0 }, armedAtMostMsAhead: seconds(315) + CLOCK_SKEW_ALLOWANCE_MS }]);
  });

  it('a 2-hour job cancelled at once withdraws its first wake-up, 2 hours out (possibly a schedule), with the cancel; its 10 s re-sends after', () => {
    // Prepare: cancelled at 5 s; the re-sends go out every 10 s until each region's final status
    const cancel = cancelGateJob(runningGateJob(7_200), 'operator', T0 + seconds(5), policy);
    let job = cancel.state;
    for (let resend = 1; resend <= 3; resend++) job = onGateTimerFired(job, { fenceToken: job.timeoutFenceToken }, job.timerDueAt ?? 0, policy).state;
    job = onFinalStatus(job, finalStatus(US, 'CANCELLED'), T0 + seconds(40), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'CANCELLED'), T0 + seconds(41), policy).state;
    // Act
    const { effects } = onFinalStatus(job, finalStatus(AP, 'CANCELLED'), T0 + seconds(42), policy);
    // Assess
    expect(disarmsOf(cancel.effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0 }, armedAtMostMsAhead: seconds(7_215) + CLOCK_SKEW_ALLOWANCE_MS }]);
    expect(disarmsOf(effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 1 }, armedAtMostMsAhead: seconds(10) + CLOCK_SKEW_ALLOWANCE_MS }]);
  });

  it("a 5-minute job whose grants moved the deadline 30 minutes out says the re-armed wake-up's lead, not its first one's", () => {
    // Prepare: every region reports a 30-minute grant; at the first due time the gate re-arms for the new deadline
    let job = runningGateJob(300);
    for (const name of REGIONS) job = onProgressReport(job, progressReport(name, { sentAt: T0 + seconds(60), lastProgressAt: T0 + seconds(60), totalExtensions: 1_800 }), T0 + seconds(60), policy).state;
    const firstDue = T0 + seconds(315);
    job = onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt ?? 0 }, firstDue, policy).state;
    expect(job.timerDueAt).toBe(T0 + seconds(300 + 1_800 + 15));
    for (const name of [US, EU]) job = onFinalStatus(job, finalStatus(name, 'COMPLETED'), T0 + seconds(400), policy).state;
    // Act
    const { effects } = onFinalStatus(job, finalStatus(AP, 'COMPLETED'), T0 + seconds(401), policy);
    // Assess: re-armed at 315 s for 2,115 s
    expect(disarmsOf(effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0 }, armedAtMostMsAhead: seconds(1_800) + CLOCK_SKEW_ALLOWANCE_MS }]);
  });

  it('a job stored before the record was kept says nothing, so its schedule is deleted as before; from its decision on the record is kept', () => {
    // Prepare
    const { farthestWakeUpAheadMs: _unknown, ...stored } = runningGateJob(7_200);
    const cancel = cancelGateJob(stored, 'operator', T0 + seconds(5), policy);
    let job: GateJob = cancel.state;
    job = onGateTimerFired(job, { fenceToken: job.timeoutFenceToken }, job.timerDueAt ?? 0, policy).state;
    for (const name of [US, EU]) job = onFinalStatus(job, finalStatus(name, 'CANCELLED'), T0 + seconds(40), policy).state;
    // Act
    const { effects } = onFinalStatus(job, finalStatus(AP, 'CANCELLED'), T0 + seconds(41), policy);
    // Assess
    expect(disarmsOf(cancel.effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0 } }]);
    expect(disarmsOf(effects)).toEqual([{ type: 'DisarmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 1 }, armedAtMostMsAhead: seconds(10) + CLOCK_SKEW_ALLOWANCE_MS }]);
  });
});
