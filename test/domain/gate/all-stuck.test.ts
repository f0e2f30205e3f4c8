import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import {
  AP, EU, T0, US, finalStatus, globalTimeoutsByRegion, policy, progressReport, runningGateJob, seconds,
} from './gate-fixtures.js';

const report = (job: GateJob, region: string, sentAtS: number, lastProgressS: number) =>
  onProgressReport(job, progressReport(region, { sentAt: T0 + seconds(sentAtS), lastProgressAt: T0 + seconds(lastProgressS) }), T0 + seconds(sentAtS), policy);

describe('seed 000 Part 5, condition 3: every still-running region without progress for the gate stuck threshold', () => {
  it('declares "stuck" when the last running region reports 180 s (+ 5 s for coalesced progress writes) without progress', () => {
    // Prepare: all three last progressed at 20 s; two already said so 185 s later.
    let job = runningGateJob(3_600);
    job = report(job, US, 205, 20).state;
    job = report(job, EU, 206, 20).state;
    expect(job.globallyTimedOut).toBe(false);
    expect(report(job, AP, 204.9, 20).state.globallyTimedOut).toBe(false); // stored progress may lag by up to 5 s

    // Act
    const { state, effects } = report(job, AP, 205, 20);

    // Assess
    expect(state.globallyTimedOut).toBe(true);
    expect(state.timeoutReason).toBe('stuck');
    expect(globalTimeoutsByRegion(effects)).toEqual({ [US]: 1, [EU]: 1, [AP]: 1 });
    expect(effects).toContainEqual({ type: 'Metric', name: 'GlobalTimeoutDeclared', dimensions: { cause: 'stuck' } });
  });

  it('one region still progressing keeps the job alive', () => {
    // Prepare
    let job = runningGateJob(3_600);
    job = report(job, US, 205, 20).state;
    job = report(job, EU, 206, 20).state;

    // Act
    const { state } = report(job, AP, 207, 195);

    // Assess
    expect(state.globallyTimedOut).toBe(false);
  });

  it('a region not heard from is not presumed stuck: its own manager and the global deadline cover it', () => {
    // Prepare: ap-southeast-2 never reported (cut off from the gate).
    let job = runningGateJob(3_600);
    job = report(job, US, 205, 20).state;

    // Act
    const { state } = report(job, EU, 206, 20);

    // Assess
    expect(state.globallyTimedOut).toBe(false);
  });

  it('a region that ended no longer counts: the remaining stuck regions time the job out', () => {
    // Prepare
    let job = runningGateJob(3_600);
    job = report(job, US, 205, 20).state;
    job = report(job, EU, 206, 20).state;
    job = report(job, AP, 150, 140).state;

    // Act
    const { state, effects } = onFinalStatus(job, finalStatus(AP, 'COMPLETED'), T0 + seconds(207), policy);

    // Assess
    expect(state.globallyTimedOut).toBe(true);
    expect(state.timeoutReason).toBe('stuck');
    expect(globalTimeoutsByRegion(effects)).toEqual({ [US]: 1, [EU]: 1 });
  });

  it('an older report arriving late neither moves progress back nor makes a region look stuck', () => {
    // Prepare
    let job = runningGateJob(3_600);
    job = report(job, US, 200, 190).state;

    // Act: a report sent at 170 s (progress at 10 s would be 160 s old) arrives after the one of 200 s.
    const { state } = report(job, US, 170, 10);

    // Assess
    expect(state).toBe(job);
    expect(state.dcLastProgress[US]).toBe(T0 + seconds(190));
    expect(state.dcLastReportAt[US]).toBe(T0 + seconds(200));
  });
});
