import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onLeaderTransfer } from '../../../shared/domain/gate/on-leader-transfer.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import { markRegionSubmitFailed, markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import {
  AP, EU, REGIONS, T0, US, decidedGateDisarm, finalStatus, gateDisarm, globalTimeoutsByRegion, leaderTransfer, policy, progressReport, runningGateJob, seconds, timeoutReport,
} from './gate-fixtures.js';

function timedOutEverywhere(): GateJob {
  let job = onTimeoutReport(runningGateJob(), timeoutReport(US, 'stuck'), T0 + seconds(100), policy).state;
  for (const region of REGIONS) {
    job = onFinalStatus(job, finalStatus(region, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), T0 + seconds(101), policy).state;
  }
  return job;
}

describe('cleanup once every region reported its final status (seed 001 §10.7.7 at the gate)', () => {
  it('the last final status disarms the gate timer; the job keeps its outcome', () => {
    // Prepare
    let job = onTimeoutReport(runningGateJob(), timeoutReport(US, 'stuck'), T0 + seconds(100), policy).state;
    job = onFinalStatus(job, finalStatus(US, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), T0 + seconds(101), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), T0 + seconds(101), policy).state;

    // Act
    const { state, effects } = onFinalStatus(job, finalStatus(AP, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), T0 + seconds(102), policy);

    // Assess
    expect(state.timerDueAt).toBeUndefined();
    expect(effects).toEqual([decidedGateDisarm()]);
    expect(gateJobStatus(state)).toBe('TIMED_OUT');
    expect(state.dcStatus).toEqual({ [US]: 'timed_out', [EU]: 'timed_out', [AP]: 'timed_out' });
  });

  it('afterwards nothing produces an effect: late timers, duplicate finals, late reports, late corrections', () => {
    // Prepare
    const job = timedOutEverywhere();
    const late = T0 + seconds(500);

    // Act
    const decisions = [
      onGateTimerFired(job, { fenceToken: 1 }, late, policy),
      onGateTimerFired(job, { fenceToken: 0 }, late, policy),
      onFinalStatus(job, finalStatus(EU, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), late, policy),
      onProgressReport(job, progressReport(AP, { sentAt: T0 + seconds(99), lastProgressAt: T0 + seconds(98) }), late, policy),
      onTimeoutReport(job, timeoutReport(US, 'stuck'), late, policy),
      onLeaderTransfer(job, leaderTransfer(EU, 5)),
    ];

    // Assess
    for (const decision of decisions) expect(decision.state).toBe(job);
    expect(decisions.flatMap((d) => d.effects).filter((e) => e.type !== 'Metric')).toEqual([]);
    expect(decisions.map((d) => d.ignored)).toEqual(['all_regions_final', 'stale_timer', 'region_final', 'region_final', 'region_final', 'region_final']);
  });

  it('a job that completes everywhere without a decision cleans up the same way', () => {
    // Prepare
    let job = runningGateJob();
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(50), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'FAILED'), T0 + seconds(51), policy).state;

    // Act
    const { state, effects } = onFinalStatus(job, finalStatus(AP, 'COMPLETED'), T0 + seconds(52), policy);

    // Assess
    expect(gateJobStatus(state)).toBe('FAILED');
    expect(state.timerDueAt).toBeUndefined();
    expect(effects).toEqual([gateDisarm()]);
  });

  it('a region that refused the submission counts as ended and does not hold the job open', () => {
    // Prepare
    let job = runningGateJob();
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(50), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'COMPLETED'), T0 + seconds(51), policy).state;

    // Act
    const { state, effects } = markRegionSubmitFailed(job, AP, T0 + seconds(52), policy);

    // Assess
    expect(state.dcStatus[AP]).toBe('failed');
    expect(gateJobStatus(state)).toBe('FAILED');
    expect(effects).toEqual([gateDisarm()]);
  });

  it('timed re-sends stop after the give-up span\'s worth of re-sends; a region that speaks up later still gets the decision', () => {
    // Prepare: ap-southeast-2 never answers.
    let job = onTimeoutReport(runningGateJob(), timeoutReport(US, 'stuck'), T0, policy).state;
    job = onFinalStatus(job, finalStatus(US, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), T0, policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), T0, policy).state;
    job = { ...job, timerDueAt: T0 + seconds(policy.rebroadcastGiveUpSeconds), rebroadcasts: policy.rebroadcastGiveUpSeconds / policy.rebroadcastSeconds };

    // Act
    const stopped = onGateTimerFired(job, { fenceToken: 1 }, T0 + seconds(policy.rebroadcastGiveUpSeconds), policy);
    const again = onGateTimerFired(stopped.state, { fenceToken: 1 }, T0 + seconds(policy.rebroadcastGiveUpSeconds + 10), policy);
    const heard = onProgressReport(stopped.state, progressReport(AP, { sentAt: T0 + seconds(4_000), lastProgressAt: T0 }), T0 + seconds(4_000), policy);

    // Assess
    expect(stopped.state.timerDueAt).toBeUndefined();
    expect(stopped.effects).toEqual([decidedGateDisarm()]);
    expect(again.ignored).toBe('rebroadcast_stopped');
    expect(again.effects).toEqual([]);
    expect(globalTimeoutsByRegion(heard.effects)).toEqual({ [AP]: 1 });
  });

  it('a region that never accepted the job (unreachable at submit, never resent) ends as the decision says when the re-sends give up', () => {
    // Prepare: AP never accepted the job; US and EU completed, their finals lost, so the gate declared at its deadline
    const datacenters = Object.fromEntries(REGIONS.map((region) => [region, { workflows: [] }]));
    let job = startGateJob({ jobId: 'job-1', timeoutSeconds: 300, datacenters }, 'digest', T0).state;
    job = markRegionSubmitted(markRegionSubmitted(job, US, 1).state, EU, 1).state;
    // (after waiting one more grace for the reports of the regions it had not heard: unheard-extensions.test.ts)
    job = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(300 + policy.extensionReportGraceSeconds), policy).state;
    job = onGateTimerFired(job, { fenceToken: 0 }, T0 + seconds(300 + 2 * policy.extensionReportGraceSeconds), policy).state;
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(340), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'COMPLETED'), T0 + seconds(340), policy).state;
    const resendsDone = { ...job, rebroadcasts: policy.rebroadcastGiveUpSeconds / policy.rebroadcastSeconds };

    // Act
    const { state, effects } = onGateTimerFired(resendsDone, { fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt ?? 0 }, job.timerDueAt ?? 0, policy);

    // Assess: the job did not complete in every region by its deadline; the gate's job ends
    expect(job.dcStatus[AP]).toBe('submitting');
    expect(state.dcStatus).toEqual({ [US]: 'completed', [EU]: 'completed', [AP]: 'timed_out' });
    expect(gateJobStatus(state)).toBe('TIMED_OUT');
    expect(state.timerDueAt).toBeUndefined();
    expect(effects).toEqual([decidedGateDisarm()]);
  });
});
