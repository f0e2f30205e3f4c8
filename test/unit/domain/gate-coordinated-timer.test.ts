import { describe, expect, it } from 'vitest';
import type { Job } from '../../../shared/domain/job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import type { EpochMs } from '../../../shared/domain/time.js';
import { JobProgressReport } from '../../../shared/events/job-progress-report.js';
import { JobTimeoutReport } from '../../../shared/events/job-timeout-report.js';
import type { BusEvent } from '../../../shared/ports/event-bus.js';
import { armedTimers, at, context, gateCoordinatedJob, publishedEvents, timerOf } from '../../support/fixtures.js';

// Default policy: a report every 10 s, gate fallback 300 s after the local timeout report.

interface Wake {
  at: EpochMs;
  events: BusEvent[];
  job: Job;
}

/** Fires the job's own timer at each due time it arms, as the scheduler would, until `until` or the job ends. */
function driveTimer(start: Job, until: EpochMs): Wake[] {
  const wakes: Wake[] = [];
  let job = start;
  while (job.status === 'RUNNING' && job.timerDueAt !== undefined && job.timerDueAt <= until) {
    const now = job.timerDueAt;
    const { state, effects } = onTimerFired(job, timerOf(job), context(now));
    if (state === job) throw new Error(`the timer at ${now} changed nothing: it would fire forever`);
    wakes.push({ at: now, events: publishedEvents(effects), job: state });
    job = state;
  }
  return wakes;
}

const typesOf = (wakes: readonly Wake[]) => wakes.map((wake) => wake.events.map((event) => event.detailType).join(','));

describe('gate-coordinated manager side (seed 000 Part 4): report, wait for the gate, fall back', () => {
  it('wakes every report interval with one JobProgressReport and stays RUNNING', () => {
    // Prepare
    const job = gateCoordinatedJob({ timeoutSeconds: 60 });
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(10)));
    // Assess
    expect(job.timerDueAt).toBe(at(10));
    expect(state.status).toBe('RUNNING');
    expect(state.tracking.lastReportAt).toBe(at(10));
    const [report, ...others] = publishedEvents(effects);
    expect(others).toEqual([]);
    expect(JobProgressReport.parse(report?.detail)).toMatchObject({ jobId: 'job-1', fenceToken: 1, workflowsTotal: 1 });
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(20)]);
  });

  it('reports progress at 10, 20, 30, 40 and 50 s, then at the 60 s deadline sends a timeout report and marks locallyTimedOut once', () => {
    // Prepare
    const job = gateCoordinatedJob({ timeoutSeconds: 60 });
    // Act
    const wakes = driveTimer(job, at(60));
    // Assess
    expect(wakes.map((wake) => wake.at)).toEqual([10, 20, 30, 40, 50, 60].map(at));
    expect(typesOf(wakes)).toEqual([...Array(5).fill('JobProgressReport'), 'JobTimeoutReport']);
    const last = wakes.at(-1);
    expect(JobTimeoutReport.parse(last?.events[0]?.detail)).toMatchObject({ reason: 'timeout', elapsedSeconds: 60, fenceToken: 1 });
    expect(last?.job.status).toBe('RUNNING');
    expect(last?.job.tracking).toMatchObject({ locallyTimedOut: true, timeoutReason: 'timeout', timeoutReportedAt: at(60) });
    expect(wakes.slice(0, -1).every((wake) => !wake.job.tracking.locallyTimedOut)).toBe(true);
  });

  it('while the gate has not decided, the timeout report is resent every interval and timeoutReportedAt stays put', () => {
    // Prepare
    const job = gateCoordinatedJob({ timeoutSeconds: 60 });
    // Act
    const wakes = driveTimer(job, at(100)).filter((wake) => wake.at > at(60));
    // Assess
    expect(wakes.map((wake) => wake.at)).toEqual([70, 80, 90, 100].map(at));
    expect(typesOf(wakes)).toEqual(Array(4).fill('JobTimeoutReport'));
    expect(wakes.every((wake) => wake.job.status === 'RUNNING' && wake.job.tracking.timeoutReportedAt === at(60))).toBe(true);
  });

  it('no gate decision within gateFallbackSeconds: TIMED_OUT for reason gate_fallback at report + 300 s, not before', () => {
    // Prepare
    const job = gateCoordinatedJob({ timeoutSeconds: 60 });
    // Act
    const wakes = driveTimer(job, at(1_000));
    // Assess
    const last = wakes.at(-1);
    expect(last?.at).toBe(at(360));
    expect(last?.job.status).toBe('TIMED_OUT');
    expect(last?.job.tracking.timeoutReason).toBe('gate_fallback');
    expect(last?.events.map((event) => event.detailType).sort()).toEqual(['JobFinalStatus', 'JobTimedOut']);
    expect(wakes.filter((wake) => wake.job.status !== 'RUNNING')).toHaveLength(1);
  });

  it('a gate-coordinated job without progress sends a timeout report for reason stuck', () => {
    // Prepare
    const job = gateCoordinatedJob({ timeoutSeconds: 3_600, stuckThresholdSeconds: 20 });
    // Act
    const wakes = driveTimer(job, at(30));
    // Assess
    const reports = wakes.flatMap((wake) => wake.events).filter((event) => event.detailType === 'JobTimeoutReport');
    expect(reports.map((event) => JobTimeoutReport.parse(event.detail).reason)).toEqual(['stuck']);
  });
});
