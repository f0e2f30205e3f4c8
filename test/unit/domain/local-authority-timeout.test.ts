import { describe, expect, it } from 'vitest';
import { startJob } from '../../../shared/domain/submit-job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { toIso } from '../../../shared/domain/time.js';
import { JobTimedOut } from '../../../shared/events/job-timed-out.js';
import {
  armedTimers,
  at,
  context,
  disarmedJobs,
  GATE_REGION,
  metricsOf,
  publishedEvents,
  REGION,
  runningJob,
  T0,
  timerOf,
} from '../../support/fixtures.js';

const submission = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('seed 001 §10.7.1: a job submitted without gateRegion times out on local authority', () => {
  it('selects the local-authority strategy and arms one timer for startedAt + timeoutSeconds', () => {
    // Prepare
    const ctx = context(T0);
    // Act
    const { job, effects } = startJob(submission, 'digest', REGION, ctx, 'incarnation-1');
    // Assess
    expect(job.tracking.strategy).toBe('local_authority');
    expect(job.tracking.gateRegion).toBeUndefined();
    expect(job.tracking.startedAt).toBe(T0);
    expect(job.timerDueAt).toBe(at(60));
    expect(armedTimers(effects)).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: at(60) }]);
  });

  it('selects the gate-coordinated strategy when the submission names a gateRegion', () => {
    // Prepare
    const ctx = context(T0);
    // Act
    const { job } = startJob({ ...submission, gateRegion: GATE_REGION }, 'digest', REGION, ctx, 'incarnation-1');
    // Assess
    expect(job.tracking.strategy).toBe('gate_coordinated');
    expect(job.tracking.gateRegion).toBe(GATE_REGION);
  });

  it('one millisecond before the deadline the job is not timed out: the fire only re-arms for the deadline', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 60 });
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(60) - 1));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(armedTimers(effects)).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: at(60) }]);
    expect(publishedEvents(effects)).toEqual([]);
  });

  it('at startedAt + timeoutSeconds the job is TIMED_OUT for reason timeout, JobTimedOut is published and the timer disarmed', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 60 });
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(60)));
    // Assess
    expect(state.status).toBe('TIMED_OUT');
    expect(state.tracking.timeoutReason).toBe('timeout');
    expect(state.finishedAt).toBe(at(60));
    expect(state.timerDueAt).toBeUndefined();
    expect(disarmedJobs(effects)).toEqual(['job-1']);
    const [event, ...others] = publishedEvents(effects);
    expect(others).toEqual([]);
    expect(event?.detailType).toBe('JobTimedOut');
    expect(JobTimedOut.parse(event?.detail)).toEqual({
      jobId: 'job-1',
      region: REGION,
      strategy: 'local_authority',
      reason: 'timeout',
      startedAt: toIso(T0),
      timedOutAt: toIso(at(60)),
      fenceToken: 1,
      version: 1,
    });
    expect(metricsOf(effects)).toContainEqual({ name: 'JobTimedOut', dimensions: { reason: 'timeout' } });
  });

  it('a job past both its deadline and its stuck deadline times out for reason timeout: the overall timeout is checked first', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 200, stuckThresholdSeconds: 30 });
    // Act
    const { state } = onTimerFired(job, timerOf(job), context(at(500)));
    // Assess
    expect(state.tracking.timeoutReason).toBe('timeout');
  });

  it('a second delivery of the same timer after the timeout changes nothing and asks for nothing', () => {
    // Prepare
    const timedOut = onTimerFired(runningJob(), { fenceToken: 1 }, context(at(60))).state;
    // Act
    const again = onTimerFired(timedOut, { fenceToken: 1 }, context(at(61)));
    // Assess
    expect(again.state).toBe(timedOut);
    expect(again.effects).toEqual([]);
  });
});
