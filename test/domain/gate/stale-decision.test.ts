import { describe, expect, it } from 'vitest';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onLeaderTransfer } from '../../../shared/domain/gate/on-leader-transfer.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import {
  AP, EU, T0, US, globalTimeoutsByRegion, leaderTransfer, policy, progressReport, runningGateJob, seconds, timeoutReport,
} from './gate-fixtures.js';

describe('seed 000 Scenario 3: a stale decision is corrected and re-issued with the current token', () => {
  it('the manager rejects JobGlobalTimeout(1) after its takeover to 2; its correction makes the gate re-issue with 2', () => {
    // Prepare: T0 leader-A (token 1) in us-east-1 reports a timeout; the gate declares with token 1 there.
    const declared = onTimeoutReport(runningGateJob(), timeoutReport(US, 'timeout', 1), T0 + seconds(300), policy);
    expect(globalTimeoutsByRegion(declared.effects)[US]).toBe(1);

    // Act: T2 leader-B took over (token 2), rejected the stale decision and sent its correction.
    const corrected = onLeaderTransfer(declared.state, leaderTransfer(US, 2));

    // Assess
    expect(corrected.state.dcFenceToken[US]).toBe(2);
    expect(globalTimeoutsByRegion(corrected.effects)).toEqual({ [US]: 2 });
    expect(corrected.state.timeoutFenceToken).toBe(1); // the same decision, re-addressed: not a new one
    expect(corrected.state.timerDueAt).toBe(declared.state.timerDueAt);
  });

  it('the timed re-send goes out with the corrected token from then on', () => {
    // Prepare
    const declared = onTimeoutReport(runningGateJob(), timeoutReport(US, 'timeout', 1), T0 + seconds(300), policy).state;
    const corrected = onLeaderTransfer(declared, leaderTransfer(US, 2)).state;

    // Act
    const { effects } = onGateTimerFired(corrected, { fenceToken: 1 }, T0 + seconds(310), policy);

    // Assess
    expect(globalTimeoutsByRegion(effects)).toEqual({ [US]: 2, [EU]: 1, [AP]: 1 });
  });

  it('a leader transfer older than the token the gate knows is stale: ignored, counted, nothing re-issued', () => {
    // Prepare
    const job = onTimeoutReport(onLeaderTransfer(runningGateJob(), leaderTransfer(US, 3)).state, timeoutReport(US, 'timeout', 3), T0, policy).state;

    // Act
    const { state, effects, ignored } = onLeaderTransfer(job, leaderTransfer(US, 2));

    // Assess
    expect(state).toBe(job);
    expect(ignored).toBe('stale_fence');
    expect(effects).toEqual([{ type: 'Metric', name: 'StaleMessageRejected', dimensions: { kind: 'leader_transfer' } }]);
  });

  it('a report from a replaced leader is stale once the gate knows the newer token', () => {
    // Prepare
    const job = onLeaderTransfer(runningGateJob(), leaderTransfer(EU, 2)).state;

    // Act
    const progress = onProgressReport(job, progressReport(EU, { sentAt: T0 + seconds(20), lastProgressAt: T0 + seconds(19), fenceToken: 1 }), T0 + seconds(21), policy);
    const timeout = onTimeoutReport(job, timeoutReport(EU, 'stuck', 1), T0 + seconds(21), policy);

    // Assess
    expect(progress.state).toBe(job);
    expect(progress.ignored).toBe('stale_fence');
    expect(timeout.state).toBe(job);
    expect(timeout.state.globallyTimedOut).toBe(false);
    expect(timeout.effects).toEqual([{ type: 'Metric', name: 'StaleMessageRejected', dimensions: { kind: 'timeout_report' } }]);
  });

  it('a decision made before a region answered its submission goes out with token 0 and is corrected the same way', () => {
    // Prepare: us-east-1 has not answered yet (submitting, token unknown).
    let job = startGateJob({ jobId: 'job-1', timeoutSeconds: 60, datacenters: { [US]: {}, [EU]: {} } }, 'd', T0).state;
    job = markRegionSubmitted(job, EU, 1).state;
    const declared = onTimeoutReport(job, timeoutReport(EU, 'stuck', 1), T0 + seconds(5), policy);
    expect(globalTimeoutsByRegion(declared.effects)).toEqual({ [US]: 0, [EU]: 1 });

    // Act: the submission answer arrives late.
    const submitted = markRegionSubmitted(declared.state, US, 1);

    // Assess
    expect(submitted.state.dcStatus[US]).toBe('running');
    expect(globalTimeoutsByRegion(submitted.effects)).toEqual({ [US]: 1 });
  });
});
