import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { onTimeoutReport } from '../../../shared/domain/gate/on-timeout-report.js';
import {
  AP, EU, REGIONS, T0, US, decidedGateDisarm, finalStatus, globalTimeoutsByRegion, policy, progressReport, runningGateJob, seconds, timeoutReport,
} from './gate-fixtures.js';

/** The gate's stored view when it went down at T0 + 60 s: every region had reported progress at 50 s. */
function viewBeforeOutage(): GateJob {
  let job = runningGateJob(3_600);
  for (const region of REGIONS) {
    job = onProgressReport(job, progressReport(region, { sentAt: T0 + seconds(50), lastProgressAt: T0 + seconds(45) }), T0 + seconds(50), policy).state;
  }
  return job;
}

describe('seed 000 Scenario 2: gate failure, the view rebuilt from re-sent reports', () => {
  it('the re-sent timeout reports of a region rebuild the decision once; every later copy only re-answers', () => {
    // Prepare: while the gate was down (60 s–400 s) eu-west-1 timed out locally and kept re-sending its report.
    const before = viewBeforeOutage();

    // Act: the gate is back at 400 s and receives three copies.
    const first = onTimeoutReport(before, timeoutReport(EU, 'stuck'), T0 + seconds(400), policy);
    const second = onTimeoutReport(first.state, timeoutReport(EU, 'stuck'), T0 + seconds(401), policy);
    const third = onTimeoutReport(second.state, timeoutReport(EU, 'stuck'), T0 + seconds(410), policy);

    // Assess
    expect(first.state.timeoutReason).toBe(`dc_timeout:${EU}:stuck`);
    expect(globalTimeoutsByRegion(first.effects)).toEqual({ [US]: 1, [EU]: 1, [AP]: 1 });
    expect(second.state).toBe(first.state);
    expect(third.state).toBe(first.state);
    expect(third.state.timeoutFenceToken).toBe(1);
    expect(globalTimeoutsByRegion(third.effects)).toEqual({ [EU]: 1 });
  });

  it('the overdue wake-up after an outage longer than the stuck threshold does not time out healthy regions', () => {
    // Prepare: the gate was down 60 s–400 s, longer than the 180 s gate stuck threshold; its timer fires late.
    const before = viewBeforeOutage();

    // Act
    const fired = onGateTimerFired(before, { fenceToken: 0 }, T0 + seconds(400), policy);
    const fresh = onProgressReport(fired.state, progressReport(US, { sentAt: T0 + seconds(401), lastProgressAt: T0 + seconds(399) }), T0 + seconds(401), policy);

    // Assess: the gate cannot tell silence from stuck, so it waits for the regions' own word. It re-arms for
    // the global deadline plus the report grace (an extension report in flight must reach it before it declares).
    expect(fired.state.globallyTimedOut).toBe(false);
    expect(fired.effects).toEqual([
      { type: 'ArmTimer', timer: { scope: 'gate', jobId: 'job-1', fenceToken: 0, dueAt: T0 + seconds(3_600 + policy.extensionReportGraceSeconds) } },
    ]);
    expect(fresh.state.globallyTimedOut).toBe(false);
    expect(fresh.state.dcLastProgress[US]).toBe(T0 + seconds(399));
  });

  it('a region that fell back to a local timeout while the gate was down makes the gate time out the others', () => {
    // Prepare: past the 300 s fallback, ap-southeast-2 ended TIMED_OUT 'gate_fallback'; its final status is the first thing the gate hears.
    const before = viewBeforeOutage();

    // Act
    const { state, effects } = onFinalStatus(before, finalStatus(AP, 'TIMED_OUT', { timeoutReason: 'gate_fallback' }), T0 + seconds(700), policy);

    // Assess
    expect(state.dcStatus[AP]).toBe('timed_out');
    expect(state.globallyTimedOut).toBe(true);
    expect(state.timeoutReason).toBe(`dc_timeout:${AP}:gate_fallback`);
    expect(globalTimeoutsByRegion(effects)).toEqual({ [US]: 1, [EU]: 1 });
  });

  it('when every region fell back, the first final status times out the rest and the last one closes the job', () => {
    // Prepare
    let job = viewBeforeOutage();

    // Act
    const results = REGIONS.map((region) => {
      const result = onFinalStatus(job, finalStatus(region, 'TIMED_OUT', { timeoutReason: 'gate_fallback' }), T0 + seconds(700), policy);
      job = result.state;
      return result;
    });

    // Assess
    expect(job.timerDueAt).toBeUndefined();
    expect(results.at(-1)?.effects).toEqual([decidedGateDisarm()]);
    expect(globalTimeoutsByRegion(results.flatMap((r) => r.effects))).toEqual({ [EU]: 1, [AP]: 1 });
    expect(job.globallyTimedOut).toBe(true);
  });
});
