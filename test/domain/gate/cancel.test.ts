import { describe, expect, it } from 'vitest';
import { JobFinishedError, TimeoutBeingAppliedError } from '../../../shared/domain/errors.js';
import { cancelGateJob } from '../../../shared/domain/gate/cancel-gate-job.js';
import { gateJobStatus, gateTimeoutReason } from '../../../shared/domain/gate/gate-job-status.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import {
  AP, EU, T0, US, finalStatus, policy, progressReport, published, regionsCancelled, runningGateJob, seconds, timeoutReport,
} from './gate-fixtures.js';

describe('cancel through the gate reaches every region, with re-sends', () => {
  it('sends JobGlobalCancel with the reason to every region and arms the re-send under a new decision token', () => {
    // Act
    const { state, effects } = cancelGateJob(runningGateJob(), 'user asked', T0 + seconds(30), policy);

    // Assess
    expect(state.cancelRequested).toEqual({ reason: 'user asked' });
    expect(state.decidedAt).toBe(T0 + seconds(30));
    expect(state.timeoutFenceToken).toBe(1);
    expect(gateJobStatus(state)).toBe('CANCELLED');
    expect(regionsCancelled(effects)).toEqual([AP, EU, US].sort());
    expect(published(effects)[0]?.detail).toMatchObject({ jobId: 'job-1', reason: 'user asked' });
    expect(effects).toContainEqual({ type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 1, dueAt: T0 + seconds(40) } });
  });

  it('re-sends only to the regions that have not reported their end, every rebroadcast interval', () => {
    // Prepare
    let job = cancelGateJob(runningGateJob(), undefined, T0 + seconds(30), policy).state;
    job = onFinalStatus(job, finalStatus(US, 'CANCELLED'), T0 + seconds(31), policy).state;

    // Act
    const early = onGateTimerFired(job, { fenceToken: 1 }, T0 + seconds(35), policy);
    const due = onGateTimerFired(job, { fenceToken: 1 }, T0 + seconds(40), policy);

    // Assess
    expect(early.state).toBe(job);
    expect(early.ignored).toBe('not_due');
    expect(regionsCancelled(due.effects)).toEqual([AP, EU].sort());
    expect(published(due.effects)[0]?.detail).not.toHaveProperty('reason');
    expect(due.state.timerDueAt).toBe(T0 + seconds(50));
  });

  it('a wake-up armed before the cancel (the global deadline) is stale', () => {
    // Prepare
    const job = cancelGateJob(runningGateJob(60), undefined, T0 + seconds(30), policy).state;

    // Act
    const { state, effects, ignored } = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(60), policy);

    // Assess
    expect(state).toBe(job);
    expect(ignored).toBe('stale_timer');
    expect(effects).toEqual([{ type: 'Metric', name: 'StaleMessageRejected', dimensions: { kind: 'gate_timer' } }]);
  });

  it('a region that still reports after the cancel is answered with the cancel, and a local timeout does not turn it into a timeout', () => {
    // Prepare
    const job = cancelGateJob(runningGateJob(), undefined, T0 + seconds(30), policy).state;

    // Act
    const progress = onProgressReport(job, progressReport(EU, { sentAt: T0 + seconds(31), lastProgressAt: T0 + seconds(29) }), T0 + seconds(32), policy);
    const timeout = onTimeoutReport(job, timeoutReport(AP, 'timeout'), T0 + seconds(33), policy);

    // Assess
    expect(regionsCancelled(progress.effects)).toEqual([EU]);
    expect(regionsCancelled(timeout.effects)).toEqual([AP]);
    expect(timeout.state.globallyTimedOut).toBe(false);
    expect(gateJobStatus(timeout.state)).toBe('CANCELLED');
  });

  it('cancelling a job that is already decided or ended everywhere is a conflict (409) and changes nothing', () => {
    // Prepare
    const timedOut = onTimeoutReport(runningGateJob(), timeoutReport(US, 'timeout'), T0 + seconds(30), policy).state;
    const cancelled = cancelGateJob(runningGateJob(), undefined, T0 + seconds(30), policy).state;
    let completed = runningGateJob();
    for (const region of [US, EU, AP]) completed = onFinalStatus(completed, finalStatus(region, 'COMPLETED'), T0 + seconds(40), policy).state;

    // Act + Assess
    // Declared, not confirmed yet: refused without calling the job TIMED_OUT (its regions may have completed).
    expect(() => cancelGateJob(timedOut, undefined, T0 + seconds(31), policy)).toThrow(TimeoutBeingAppliedError);
    expect(() => cancelGateJob(cancelled, undefined, T0 + seconds(31), policy)).toThrow(JobFinishedError);
    expect(() => cancelGateJob(completed, undefined, T0 + seconds(41), policy)).toThrow(/already COMPLETED/);
  });

  it('a region that timed out on its own before the cancel reached it (its report lost) makes the job TIMED_OUT with that region\'s reason, not a reasonless one', () => {
    // Prepare
    let job = cancelGateJob(runningGateJob(), undefined, T0 + seconds(30), policy).state;
    job = onFinalStatus(job, finalStatus(US, 'CANCELLED'), T0 + seconds(31), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'CANCELLED'), T0 + seconds(31), policy).state;

    // Act
    const { state } = onFinalStatus(job, finalStatus(AP, 'TIMED_OUT', { timeoutReason: 'stuck' }), T0 + seconds(32), policy);

    // Assess
    expect(gateJobStatus(state)).toBe('TIMED_OUT');
    expect(state.globallyTimedOut).toBe(false);
    expect(state.dcTimeoutReported[AP]).toBe('stuck');
    expect(gateTimeoutReason(state)).toBe(`dc_timeout:${AP}:stuck`);
    expect(gateTimeoutReason(cancelGateJob(runningGateJob(), undefined, T0 + seconds(30), policy).state)).toBeUndefined();
  });
});
