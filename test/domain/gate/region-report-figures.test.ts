import { describe, expect, it } from 'vitest';
import { gateJobView } from '../../../shared/app/gate/gate-job-view.js';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { toIso } from '../../../shared/domain/time.js';
import { AP, EU, T0, US, policy, progressReport, runningGateJob, seconds } from './gate-fixtures.js';

// the workflow counts and `hasRecentProgress` of JobProgressReport
// are used by the gate: shown per region, and the flag feeds the all-stuck rule.

type ReportOptions = Omit<Parameters<typeof progressReport>[1], 'sentAt' | 'lastProgressAt'>;

const report = (job: GateJob, region: string, sentAtS: number, lastProgressS: number, options: ReportOptions = {}) =>
  onProgressReport(
    job,
    progressReport(region, { sentAt: T0 + seconds(sentAtS), lastProgressAt: T0 + seconds(lastProgressS), ...options }),
    T0 + seconds(sentAtS),
    policy,
  );

describe("the gate's per-region view carries the newest report's workflow counts and recent-progress flag", () => {
  it('shows each region as its newest report described it', () => {
    // Prepare
    let job = runningGateJob(3_600);
    job = report(job, US, 30, 25, { workflows: { total: 4, completed: 1, failed: 1 } }).state;
    // Act
    const view = gateJobView(job);
    // Assess
    expect(view.datacenters[US]).toMatchObject({
      lastReport: { at: toIso(T0 + seconds(30)), workflows: { total: 4, completed: 1, failed: 1 }, hasRecentProgress: true },
    });
    expect(view.datacenters[EU]).not.toHaveProperty('lastReport');
  });

  it('an older report arriving late does not replace the newer figures', () => {
    // Prepare
    let job = runningGateJob(3_600);
    job = report(job, US, 60, 55, { workflows: { total: 4, completed: 3, failed: 0 } }).state;
    // Act
    job = report(job, US, 30, 25, { workflows: { total: 4, completed: 1, failed: 0 } }).state;
    // Assess
    expect(gateJobView(job).datacenters[US]).toMatchObject({
      lastReport: { at: toIso(T0 + seconds(60)), workflows: { total: 4, completed: 3, failed: 0 } },
    });
  });
});

describe('hasRecentProgress feeds the all-stuck rule (seed 000 Part 5, condition 3)', () => {
  it('a region whose newest report says it progressed recently is not stuck, whatever its last progress time', () => {
    // Prepare: two regions stuck by every measure; the third's manager says it progressed since its last report.
    let job = runningGateJob(3_600);
    job = report(job, US, 205, 20).state;
    job = report(job, EU, 206, 20).state;
    // Act
    const { state } = report(job, AP, 207, 20, { hasRecentProgress: true });
    // Assess
    expect(state.globallyTimedOut).toBe(false);
  });

  it("the same region's next report without recent progress completes the rule", () => {
    // Prepare
    let job = runningGateJob(3_600);
    job = report(job, US, 205, 20).state;
    job = report(job, EU, 206, 20).state;
    job = report(job, AP, 207, 20, { hasRecentProgress: true }).state;
    // Act
    const { state } = report(job, AP, 217, 20, { hasRecentProgress: false });
    // Assess
    expect(state.globallyTimedOut).toBe(true);
    expect(state.timeoutReason).toBe('stuck');
  });

  // found on the local cloud's virtual clock, where the periodic report and the one an
  // extension sends at once carry the same millisecond; the global deadline cut the extension short.
  it('two reports of the same instant merge to the larger extension figures, whichever arrives first', () => {
    // Prepare
    const periodic = { totalExtensions: 0, maxExtension: 0, workers: 0 };
    const extended = { totalExtensions: 30, maxExtension: 30, workers: 1 };
    // Act
    const inOrder = report(report(runningGateJob(60), US, 20, 19, periodic).state, US, 20, 19, extended).state;
    const reversed = report(report(runningGateJob(60), US, 20, 19, extended).state, US, 20, 19, periodic);
    // Assess
    for (const job of [inOrder, reversed.state]) {
      expect(job.dcTotalExtensions[US]).toBe(30);
      expect(job.dcMaxExtension[US]).toBe(30);
      expect(job.dcWorkersWithExtensions[US]).toBe(1);
    }
    expect(reversed.ignored).toBe('duplicate');
  });
});
