import { describe, expect, it } from 'vitest';
import { cancelGateJob } from '../../../shared/domain/gate/cancel-gate-job.js';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import { JobFinalStatus } from '../../../shared/events/job-final-status.js';
import { toIso } from '../../../shared/domain/time.js';
import { AP, EU, T0, US, finalStatus, globalTimeoutsByRegion, policy, published, regionsCancelled, runningGateJob, seconds, timeoutReport } from './gate-fixtures.js';

/** A region's CANCELLED final status after a cancel made there: asking for the cancel everywhere, with its reason. */
function regionCancelled(region: string, reason?: string) {
  const event = JobFinalStatus.build({
    jobId: 'job-1',
    region,
    gateRegion: US,
    managerId: `${region}-manager`,
    status: 'CANCELLED',
    ...(reason !== undefined ? { cancelReason: reason } : {}),
    cancelEverywhere: true,
    timestamp: toIso(T0),
    fenceToken: 1,
  });
  return JobFinalStatus.parse(event.detail);
}

describe("the gate spreads a region's own cancel to the other regions", () => {
  it('cancels the job everywhere with the re-sends of any cancel, and answers the region that asked', () => {
    // Act
    const { state, effects } = onFinalStatus(runningGateJob(), regionCancelled(EU, 'wrong input'), T0 + seconds(30), policy);
    // Assess
    expect(state.cancelRequested).toEqual({ reason: 'wrong input', region: EU });
    expect(state.dcStatus[EU]).toBe('cancelled');
    expect(gateJobStatus(state)).toBe('CANCELLED');
    expect(regionsCancelled(effects)).toEqual([AP, EU, US].sort());
    expect(published(effects).every((event) => event.detail.reason === 'wrong input')).toBe(true);
    expect(state.timerDueAt).toBe(T0 + seconds(40));
  });

  it("a repeat from the region (its answer was lost) is answered again, without a write; a repeat that does not ask is not answered", () => {
    // Prepare
    const job = onFinalStatus(runningGateJob(), regionCancelled(EU), T0 + seconds(30), policy).state;
    // Act
    const asked = onFinalStatus(job, regionCancelled(EU), T0 + seconds(41), policy);
    const told = onFinalStatus(job, finalStatus(EU, 'CANCELLED'), T0 + seconds(42), policy);
    // Assess
    expect(asked.state).toBe(job);
    expect(regionsCancelled(asked.effects)).toEqual([EU]);
    expect(told.state).toBe(job);
    expect(told.effects).toEqual([]);
  });

  it('a region of an older version (no ask) still has its cancel spread, and is not answered', () => {
    const { state, effects } = onFinalStatus(runningGateJob(), finalStatus(EU, 'CANCELLED'), T0 + seconds(30), policy);
    expect(state.cancelRequested).toEqual({ region: EU });
    expect(regionsCancelled(effects)).toEqual([AP, US].sort());
  });

  it('after a global timeout the region is answered with the timeout, at its fence, and nothing is cancelled', () => {
    // Prepare
    const timedOut = onTimeoutReport(runningGateJob(), timeoutReport(US, 'stuck'), T0 + seconds(20), policy).state;
    // Act
    const { state, effects } = onFinalStatus(timedOut, regionCancelled(EU), T0 + seconds(30), policy);
    // Assess
    expect(state.cancelRequested).toBeUndefined();
    expect(state.dcStatus[EU]).toBe('cancelled');
    expect(globalTimeoutsByRegion(effects)).toEqual({ [EU]: 1 });
    expect(regionsCancelled(effects)).toEqual([]);
  });

  it("a cancel through the gate decided first keeps its reason; the region is answered with it", () => {
    // Prepare
    const cancelled = cancelGateJob(runningGateJob(), 'from the gate', T0 + seconds(20), policy).state;
    // Act
    const { state, effects } = onFinalStatus(cancelled, regionCancelled(EU, 'from the region'), T0 + seconds(30), policy);
    // Assess
    expect(state.cancelRequested).toEqual({ reason: 'from the gate' });
    expect(regionsCancelled(effects)).toEqual([EU]);
  });

  it('the last region to end: nothing left to send to, the gate keeps no wake-up, the region is answered', () => {
    // Prepare
    let job = onFinalStatus(runningGateJob(), finalStatus(US, 'COMPLETED'), T0 + seconds(10), policy).state;
    job = onFinalStatus(job, finalStatus(AP, 'COMPLETED'), T0 + seconds(11), policy).state;
    // Act
    const { state, effects } = onFinalStatus(job, regionCancelled(EU), T0 + seconds(30), policy);
    // Assess
    expect(gateJobStatus(state)).toBe('CANCELLED');
    expect(state.timerDueAt).toBeUndefined();
    expect(regionsCancelled(effects)).toEqual([EU]);
  });
});
