import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { extensionsMayBeUnheard, globalDeadline } from '../../../shared/domain/gate/global-deadline.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { onProgressReport } from '../../../shared/domain/gate/on-progress-report.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import { EU, T0, US, globalTimeoutsByRegion, policy, progressReport, seconds } from './gate-fixtures.js';

const grace = seconds(policy.extensionReportGraceSeconds);
const fire = (job: GateJob, now: number) =>
  onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, ...(job.timerDueAt !== undefined ? { dueAt: job.timerDueAt } : {}) }, now, policy);

/** A 60 s job the gate recorded at T0 in two regions; each accepts it `startSeconds` after T0 (its answer's `deadlineAt` says so). */
function acceptedAt(starts: Partial<Record<string, number>>): GateJob {
  let job = startGateJob({ jobId: 'job-1', timeoutSeconds: 60, datacenters: { [US]: {}, [EU]: {} } }, 'digest', T0).state;
  for (const [region, startSeconds] of Object.entries(starts)) {
    if (startSeconds !== undefined) job = markRegionSubmitted(job, region, 1, { deadlineAt: T0 + seconds(startSeconds + 60) }).state;
  }
  return job;
}

/**
 * Each region measures the job's deadline from when it accepted it, and tells its workers so. A region
 * accepts late when the fan-out is resent after it did not answer (the contract's retry), or on a slow
 * start: the gate counts that region's deadline from the start its acceptance gave, not from its own
 * `submittedAt` (review finding F3). A region's word is bounded: it can neither bring condition 1
 * earlier than the seed's formula nor postpone it past the job's own deadline plus one timeout.
 */
describe('condition 1 for a region that accepted the job after the gate recorded it', () => {
  it('a region accepted 30 s late is not timed out before its own deadline: the wake-up at 60 s + grace re-arms for 90 s + grace', () => {
    // Prepare: US accepted at once, EU 30 s later (its workers were told 90 s)
    const job = acceptedAt({ [US]: 0, [EU]: 30 });

    // Act
    const early = fire(job, T0 + seconds(60) + grace);

    // Assess
    expect(job.dcStartedAt).toEqual({ [US]: T0, [EU]: T0 + seconds(30) });
    expect(globalDeadline(job)).toBe(T0 + seconds(90));
    expect(early.state).toMatchObject({ globallyTimedOut: false, timerDueAt: T0 + seconds(90) + grace });
    expect(globalTimeoutsByRegion(early.effects)).toEqual({});
  });

  it("each region's deadline counts its own extensions: 30 s late with none, or on time with 20 s, the later one governs", () => {
    // Prepare: US on time, granted 20 s; EU 30 s late, no grant
    let job = acceptedAt({ [US]: 0, [EU]: 30 });
    job = onProgressReport(job, progressReport(US, { sentAt: T0 + seconds(40), lastProgressAt: T0 + seconds(40), totalExtensions: 20, maxExtension: 20, workers: 1 }), T0 + seconds(40), policy).state;

    // Assess: max(0 + 60 + 20, 30 + 60 + 0)
    expect(globalDeadline(job)).toBe(T0 + seconds(90));
  });

  it('a report the late region sent before its own deadline leaves its extension total open: the gate waits one grace more', () => {
    // Prepare: EU accepted 12 s late (its deadline 72 s); the gate heard it last at 62 s, with no grant
    let job = acceptedAt({ [US]: 0, [EU]: 12 });
    for (const region of [US, EU]) {
      const sentAt = T0 + seconds(region === US ? 70 : 62);
      job = onProgressReport(job, progressReport(region, { sentAt, lastProgressAt: sentAt }), sentAt, policy).state;
    }
    job = { ...job, timerDueAt: T0 + seconds(72) + grace };

    // Act: the wake-up at EU's deadline + grace
    const waited = fire(job, T0 + seconds(72) + grace);

    // Assess: 62 s is before EU's deadline (72 s), though after the gate's own (60 s)
    expect(extensionsMayBeUnheard(job)).toBe(true);
    expect(waited.state).toMatchObject({ globallyTimedOut: false, extensionReportsAwaitedUntil: T0 + seconds(72) + 2 * grace });
  });

  it('a repeat answer (a resent submit) that counts grants made since does not move the start: the earliest is kept', () => {
    // Prepare: EU accepted at 12 s
    const job = acceptedAt({ [US]: 0, [EU]: 12 });

    // Act: the same body resent at 70 s; EU granted 30 s since, so it answers deadlineAt 102 s
    const repeat = markRegionSubmitted(job, EU, 1, { deadlineAt: T0 + seconds(102) });

    // Assess
    expect(repeat.state).toBe(job);
    expect(repeat.state.dcStartedAt?.[EU]).toBe(T0 + seconds(12));
  });

  it('an acceptance without a readable deadline leaves the region counted from the gate’s own start', () => {
    // Act
    const job = markRegionSubmitted(acceptedAt({ [US]: 0 }), EU, 1).state;

    // Assess
    expect(job.dcStartedAt).toEqual({ [US]: T0 });
    expect(globalDeadline(job)).toBe(T0 + seconds(60));
  });
});

describe('the bound on a region’s start (a very late region, or one whose clock or answer is wrong)', () => {
  it('a region that accepted after the job’s own deadline (submittedAt + timeoutSeconds) does not postpone it', () => {
    // Prepare: EU says it started at 61 s, one second after the job's own deadline
    const job = acceptedAt({ [US]: 0, [EU]: 61 });

    // Act
    const due = fire({ ...job, dcLastReportAt: { [US]: T0 + seconds(70), [EU]: T0 + seconds(70) } }, T0 + seconds(60) + grace);

    // Assess: condition 1 as if EU had started with the gate
    expect(globalDeadline(job)).toBe(T0 + seconds(60));
    expect(due.state).toMatchObject({ globallyTimedOut: true, timeoutReason: 'timeout' });
  });

  it('a region accepted at the job’s own deadline still counts: the bound is inclusive, at most one timeout more', () => {
    expect(globalDeadline(acceptedAt({ [US]: 0, [EU]: 60 }))).toBe(T0 + seconds(120));
  });

  it('a region whose clock runs behind the gate’s does not bring condition 1 earlier than the seed’s formula', () => {
    // Prepare: EU's answer says it started 10 s before the gate recorded the job; it granted 30 s
    let job = acceptedAt({ [US]: 0, [EU]: -10 });
    job = onProgressReport(job, progressReport(EU, { sentAt: T0 + seconds(40), lastProgressAt: T0 + seconds(40), totalExtensions: 30, maxExtension: 30, workers: 1 }), T0 + seconds(40), policy).state;

    // Assess: submittedAt + 60 s + 30 s, not 80 s
    expect(globalDeadline(job)).toBe(T0 + seconds(90));
  });
});
