import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../shared/domain/errors.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import {
  AP, EU, T0, US, globalTimeoutsByRegion, heardFromEveryRegion, policy, progressReport, runningGateJob, seconds,
} from './gate-fixtures.js';

// The gate decides condition 1 only the report grace after the global deadline: an extension granted
// in a region just before the deadline, or whose immediate report to the gate was lost and is carried
// by the region's next periodic report (every 10 s), must reach the gate before the gate declares. A
// region that reaches its own deadline still reports its local timeout at once (condition 2, not delayed).
const grace = seconds(policy.extensionReportGraceSeconds);

describe('seed 000 Part 5, condition 1: the global deadline plus the largest extension total of any region', () => {
  it('a new gate job has every region submitting and one wake-up at submittedAt + timeoutSeconds + the report grace', () => {
    // Act
    const { state, effects } = startGateJob({ jobId: 'job-1', timeoutSeconds: 60, datacenters: { [US]: {}, [EU]: {} } }, 'digest', T0);

    // Assess
    expect(state).toMatchObject({
      submittedAt: T0,
      targetRegions: [US, EU],
      dcStatus: { [US]: 'submitting', [EU]: 'submitting' },
      dcLastProgress: { [US]: T0, [EU]: T0 },
      dcFenceToken: { [US]: 0, [EU]: 0 },
      globallyTimedOut: false,
      timeoutFenceToken: 0,
      timerDueAt: T0 + seconds(60) + grace,
    });
    expect(effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0, dueAt: T0 + seconds(60) + grace } }]);
  });

  it('a gate job without any region is refused', () => {
    expect(() => startGateJob({ jobId: 'job-1', timeoutSeconds: 60, datacenters: {} }, 'digest', T0)).toThrow(InvalidRequestError);
  });

  it('extensions in one region move the deadline by that region\'s total, not by the sum: the timer re-arms, then declares', () => {
    // Prepare: 60 s job; us-east-1 granted 15 + 7.5 = 22.5 s, eu-west-1 granted 10 s.
    let job = runningGateJob(60);
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(50), lastProgressAt: T0 + seconds(49), totalExtensions: 22.5, maxExtension: 15, workers: 1 }), T0 + seconds(50), policy).state;
    job = onProgressReport(job, progressReport(EU, { sentAt: T0 + seconds(50), lastProgressAt: T0 + seconds(49), totalExtensions: 10, maxExtension: 10, workers: 1 }), T0 + seconds(50), policy).state;

    // Act
    // The first wake-up (60 s + grace) is before the new deadline (82.5 s), which is decided at 82.5 s + grace.
    const early = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(60) + grace, policy);
    const again = onGateTimerFired(early.state, { fenceToken: 0 }, T0 + seconds(70), policy);
    const atDeadline = onGateTimerFired(early.state, { fenceToken: 0 }, T0 + seconds(82.5), policy);
    // Every region's periodic report at 90 s, past each one's deadline: the gate knows every grant.
    const due = onGateTimerFired(heardFromEveryRegion(early.state, T0 + seconds(90)), { fenceToken: 0 }, T0 + seconds(82.5) + grace, policy);

    // Assess
    expect(early.state.globallyTimedOut).toBe(false);
    expect(early.state.timerDueAt).toBe(T0 + seconds(82.5) + grace);
    expect(early.effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0, dueAt: T0 + seconds(82.5) + grace } }]);
    expect(again.state).toBe(early.state);
    expect(again.ignored).toBe('not_due');
    expect(atDeadline.state).toBe(early.state);
    expect(atDeadline.ignored).toBe('not_due');
    expect(due.state.globallyTimedOut).toBe(true);
    expect(due.state.timeoutReason).toBe('timeout');
    expect(due.state.dcMaxExtension).toEqual({ [US]: 15, [EU]: 10, [AP]: 0 });
    expect(globalTimeoutsByRegion(due.effects)).toEqual({ [US]: 1, [EU]: 1, [AP]: 1 });
  });

  it('with no extensions the deadline is the plain timeout', () => {
    // Act
    const atDeadline = onGateTimerFired(runningGateJob(60), { fenceToken: 0 }, T0 + seconds(60), policy);
    const { state } = onGateTimerFired(heardFromEveryRegion(runningGateJob(60), T0 + seconds(70)), { fenceToken: 0 }, T0 + seconds(60) + grace, policy);

    // Assess
    expect(atDeadline.state.globallyTimedOut).toBe(false);
    expect(atDeadline.ignored).toBe('not_due');
    expect(state.timeoutReason).toBe('timeout');
    expect(state.timeoutFenceToken).toBe(1);
  });

  it('an extension total that went down (a failed worker\'s extensions dropped) moves the deadline back', () => {
    // Prepare
    let job = runningGateJob(60);
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(30), lastProgressAt: T0 + seconds(30), totalExtensions: 30 }), T0 + seconds(30), policy).state;

    // Act
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(40), lastProgressAt: T0 + seconds(40), totalExtensions: 0 }), T0 + seconds(40), policy).state;
    const { state } = onGateTimerFired(heardFromEveryRegion(job, T0 + seconds(70)), { fenceToken: 0 }, T0 + seconds(60) + grace, policy);

    // Assess
    expect(state.globallyTimedOut).toBe(true);
  });

  it('an extension reported after the global deadline but within the report grace still moves the deadline', () => {
    // Prepare: 60 s job; us-east-1's report of a 30 s extension reaches the gate only at 65 s, 5 s past
    // the global deadline (its immediate report was lost; the next periodic one carries it).
    let job = runningGateJob(60);
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(65), lastProgressAt: T0 + seconds(64), totalExtensions: 30, maxExtension: 30, workers: 1 }), T0 + seconds(65), policy).state;

    // Act: the first wake-up, armed at the deadline plus the grace.
    const fired = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(60) + grace, policy);
    const due = onGateTimerFired(heardFromEveryRegion(fired.state, T0 + seconds(100)), { fenceToken: 0 }, T0 + seconds(90) + grace, policy);

    // Assess
    expect(fired.state.globallyTimedOut).toBe(false);
    expect(globalTimeoutsByRegion(fired.effects)).toEqual({});
    expect(fired.state.timerDueAt).toBe(T0 + seconds(90) + grace);
    expect(fired.effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0, dueAt: T0 + seconds(90) + grace } }]);
    expect(due.state.globallyTimedOut).toBe(true);
    expect(due.state.timeoutReason).toBe('timeout');
  });
});
