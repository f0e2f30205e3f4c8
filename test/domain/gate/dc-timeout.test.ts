import { describe, expect, it } from 'vitest';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { onLeaderTransfer } from '../../../shared/domain/gate/on-leader-transfer.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import {
  AP, EU, T0, US, globalTimeoutsByRegion, leaderTransfer, policy, published, runningGateJob, seconds, timeoutReport,
} from './gate-fixtures.js';

describe('seed 001 §10.7.2: one region times out → the gate times the job out in every region', () => {
  it('declares on the first local timeout report and sends JobGlobalTimeout to every region with its own fence token', () => {
    // Prepare: eu-west-1 was taken over once, so the gate knows token 2 there.
    const job = onLeaderTransfer(runningGateJob(), leaderTransfer(EU, 2)).state;
    const now = T0 + seconds(130);

    // Act
    const { state, effects } = onTimeoutReport(job, timeoutReport(US, 'stuck'), now, policy);

    // Assess
    expect(state.globallyTimedOut).toBe(true);
    expect(state.timeoutReason).toBe(`dc_timeout:${US}:stuck`);
    expect(state.timeoutFenceToken).toBe(1);
    expect(state.decidedAt).toBe(now);
    expect(state.dcTimeoutReported).toEqual({ [US]: 'stuck' });
    expect(state.dcStatus[US]).toBe('running'); // still waiting for the decision: only a final status ends it
    // Declared; reported TIMED_OUT once a region confirms it with its final status (gate-job-status.ts).
    expect(gateJobStatus(state)).toBe('RUNNING');
    expect(globalTimeoutsByRegion(effects)).toEqual({ [US]: 1, [EU]: 2, [AP]: 1 });
    expect(published(effects)[0]?.detail).toMatchObject({ jobId: 'job-1', reason: `dc_timeout:${US}:stuck`, timedOutAt: new Date(now).toISOString() });
    expect(effects).toContainEqual({ type: 'Metric', name: 'GlobalTimeoutDeclared', dimensions: { cause: 'dc_timeout' } });
    expect(effects).toContainEqual({
      type: 'ArmTimer',
      timer: { scope: 'gate', jobId: 'job-1', fenceToken: 1, dueAt: now + seconds(policy.rebroadcastSeconds) },
    });
  });

  it('a second region timing out, or the first one re-sending its report, does not declare again: it is answered with the decision', () => {
    // Prepare
    const declared = onTimeoutReport(runningGateJob(), timeoutReport(US, 'stuck'), T0 + seconds(130), policy).state;

    // Act
    const resent = onTimeoutReport(declared, timeoutReport(US, 'stuck'), T0 + seconds(140), policy);
    const other = onTimeoutReport(declared, timeoutReport(AP, 'timeout'), T0 + seconds(141), policy);

    // Assess
    expect(resent.state).toBe(declared);
    expect(resent.ignored).toBe('decision_resent');
    expect(globalTimeoutsByRegion(resent.effects)).toEqual({ [US]: 1 });
    expect(other.state.timeoutFenceToken).toBe(1);
    expect(other.state.timeoutReason).toBe(`dc_timeout:${US}:stuck`);
    expect(other.state.dcTimeoutReported).toEqual({ [US]: 'stuck', [AP]: 'timeout' });
    expect(globalTimeoutsByRegion(other.effects)).toEqual({ [AP]: 1 });
    expect(other.effects.some((e) => e.type === 'Metric' && e.name === 'GlobalTimeoutDeclared')).toBe(false);
  });

  it('a timeout report from a region the job does not run in changes nothing', () => {
    // Prepare
    const job = runningGateJob();

    // Act
    const { state, effects, ignored } = onTimeoutReport(job, timeoutReport('sa-east-1', 'timeout'), T0 + seconds(10), policy);

    // Assess
    expect(state).toBe(job);
    expect(effects).toEqual([]);
    expect(ignored).toBe('unknown_region');
  });
});
