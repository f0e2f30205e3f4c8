import { describe, expect, it } from 'vitest';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { JobFinishedError } from '../../../shared/domain/errors.js';
import { CLOCK_SKEW_ALLOWANCE_MS } from '../../../shared/domain/job-timer.js';
import { takeOverJob } from '../../../shared/domain/take-over-job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { toIso } from '../../../shared/domain/time.js';
import { JobLeaderTransfer } from '../../../shared/events/job-leader-transfer.js';
import {
  armedTimers,
  at,
  context,
  GATE_REGION,
  gateCoordinatedJob,
  MANAGER_ID,
  publishedEvents,
  REGION,
  runningJob,
  T0,
} from '../../support/fixtures.js';

describe('seed 001 §10.7.5: a takeover continues timeout tracking from the same startedAt', () => {
  it('raises the fence token by one and keeps startedAt and the effective deadline', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 300, fenceToken: 1 });
    // Act
    const { state } = takeOverJob(job, context(at(100)));
    // Assess
    expect(state.tracking.fenceToken).toBe(2);
    expect(state.tracking.startedAt).toBe(T0);
    expect(effectiveDeadline(state.tracking)).toBe(effectiveDeadline(job.tracking));
    expect(state.status).toBe('RUNNING');
  });

  it('re-arms the timer for the unchanged due time under the new token', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 300 });
    // Act
    const { state, effects } = takeOverJob(job, context(at(100)));
    // Assess
    expect(state.timerDueAt).toBe(job.timerDueAt);
    expect(armedTimers(effects)).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 2, dueAt: at(125) }]);
  });

  // Long-sweep seed 921335: the wake-up armed at the job's own timeout (where the grants of workers
  // fallen silent stop counting) was moved to the deadline the grants made, 112 s later, by a takeover.
  it('never moves the armed wake-up later: one armed at the own timeout stays, under the new token', () => {
    // Prepare: grants carry the deadline 100 s past the own timeout, where the wake-up is armed
    const base = runningJob({ timeoutSeconds: 300 });
    const job = { ...base, timerDueAt: at(300), tracking: { ...base.tracking, stuckThresholdSeconds: 3_600, totalExtensionsGranted: 100 } };
    // Act
    const { state, effects } = takeOverJob(job, context(at(200)));
    // Assess
    expect(state.timerDueAt).toBe(at(300));
    expect(armedTimers(effects)).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 2, dueAt: at(300) }]);
  });

  // A schedule's name carries the fence token (so an old leader's late arm cannot replace the new one's):
  // the old token's wake-up is withdrawn, as a finished job's is, only where it may be a schedule.
  it("withdraws the old token's wake-up, saying how far ahead it was armed at most", () => {
    // Prepare
    const job = runningJob({ stuckThresholdSeconds: 3_600, fenceToken: 4 });
    // Act
    const { effects } = takeOverJob(job, context(at(100)));
    // Assess
    expect(effects.filter((effect) => effect.type === 'DisarmTimer')).toEqual([
      { type: 'DisarmTimer', timer: { scope: 'job', jobId: 'job-1', fenceToken: 4 }, armedAtMostMsAhead: 3_605_000 + CLOCK_SKEW_ALLOWANCE_MS },
    ]);
  });

  it('a local-authority takeover tells no gate', () => {
    // Prepare
    const job = runningJob();
    // Act
    const { effects } = takeOverJob(job, context(at(10)));
    // Assess
    expect(publishedEvents(effects)).toEqual([]);
  });

  it('a gate-coordinated takeover announces the new leader and token to the gate', () => {
    // Prepare
    const job = gateCoordinatedJob({ fenceToken: 3 });
    // Act
    const { effects } = takeOverJob(job, context(at(10)));
    // Assess
    const [transfer] = publishedEvents(effects, 'JobLeaderTransfer');
    expect(JobLeaderTransfer.parse(transfer?.detail)).toEqual({
      jobId: 'job-1',
      region: REGION,
      gateRegion: GATE_REGION,
      newLeaderId: MANAGER_ID,
      fenceToken: 4,
      version: 1,
    });
  });

  it('the new leader times the job out at the original deadline, and JobTimedOut carries the original startedAt', () => {
    // Prepare
    const taken = takeOverJob(runningJob({ timeoutSeconds: 60 }), context(at(30))).state;
    // Act
    const { state, effects } = onTimerFired(taken, { fenceToken: 2 }, context(at(60)));
    // Assess
    expect(state.status).toBe('TIMED_OUT');
    expect(publishedEvents(effects, 'JobTimedOut')[0]?.detail).toMatchObject({ startedAt: toIso(T0), fenceToken: 2 });
  });

  it('a finished job cannot be taken over', () => {
    // Prepare
    const finished = onTimerFired(runningJob(), { fenceToken: 1 }, context(at(60))).state;
    // Act
    const takeOver = () => takeOverJob(finished, context(at(61)));
    // Assess
    expect(takeOver).toThrow(JobFinishedError);
  });
});
