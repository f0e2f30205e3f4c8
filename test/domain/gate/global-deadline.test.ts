import { describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../../shared/domain/errors.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import {
  AP, EU, T0, US, globalTimeoutsByRegion, policy, progressReport, runningGateJob, seconds,
} from './gate-fixtures.js';

describe('seed 000 Part 5, condition 1: the global deadline plus the largest extension total of any region', () => {
  it('a new gate job has every region submitting and one wake-up at submittedAt + timeoutSeconds', () => {
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
      timerDueAt: T0 + seconds(60),
    });
    expect(effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0, dueAt: T0 + seconds(60) } }]);
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
    const early = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(60), policy);
    const again = onGateTimerFired(early.state, { fenceToken: 0 }, T0 + seconds(70), policy);
    const due = onGateTimerFired(early.state, { fenceToken: 0 }, T0 + seconds(82.5), policy);

    // Assess
    expect(early.state.globallyTimedOut).toBe(false);
    expect(early.state.timerDueAt).toBe(T0 + seconds(82.5));
    expect(early.effects).toEqual([{ type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0, dueAt: T0 + seconds(82.5) } }]);
    expect(again.state).toBe(early.state);
    expect(again.ignored).toBe('not_due');
    expect(due.state.globallyTimedOut).toBe(true);
    expect(due.state.timeoutReason).toBe('timeout');
    expect(due.state.dcMaxExtension).toEqual({ [US]: 15, [EU]: 10, [AP]: 0 });
    expect(globalTimeoutsByRegion(due.effects)).toEqual({ [US]: 1, [EU]: 1, [AP]: 1 });
  });

  it('with no extensions the deadline is the plain timeout', () => {
    // Act
    const { state } = onGateTimerFired(runningGateJob(60), { fenceToken: 0 }, T0 + seconds(60), policy);

    // Assess
    expect(state.timeoutReason).toBe('timeout');
    expect(state.timeoutFenceToken).toBe(1);
  });

  it('an extension total that went down (a failed worker\'s extensions dropped) moves the deadline back', () => {
    // Prepare
    let job = runningGateJob(60);
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(30), lastProgressAt: T0 + seconds(30), totalExtensions: 30 }), T0 + seconds(30), policy).state;

    // Act
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(40), lastProgressAt: T0 + seconds(40), totalExtensions: 0 }), T0 + seconds(40), policy).state;
    const { state } = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(60), policy);

    // Assess
    expect(state.globallyTimedOut).toBe(true);
  });
});
