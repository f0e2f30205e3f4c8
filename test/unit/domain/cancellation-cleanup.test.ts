import { describe, expect, it } from 'vitest';
import { cancelJob } from '../../../shared/domain/cancel-job.js';
import { completeWorkflow } from '../../../shared/domain/complete-workflow.js';
import { JobFinishedError } from '../../../shared/domain/errors.js';
import { workflowState } from '../../../shared/domain/job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { at, context, disarmedJobs, publishedEvents, runningJob, timerOf, workflowAt, workflowsOf } from '../../support/fixtures.js';

describe('seed 001 §10.7.8: cancelling a job stops its timeout tracking', () => {
  it('cancel mid-run ends the job CANCELLED with its reason and disarms the timer; nothing says timed out', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 60 });
    // Act
    const { state, effects } = cancelJob(job, 'user asked', context(at(30)));
    // Assess
    expect(state.status).toBe('CANCELLED');
    expect(state.cancelReason).toBe('user asked');
    expect(state.timerDueAt).toBeUndefined();
    expect(disarmedJobs(effects)).toEqual(['job-1']);
    expect(publishedEvents(effects, 'JobTimedOut')).toEqual([]);
  });

  it('the workflows still active when the job is cancelled read as cancelled', () => {
    // Prepare
    const job = runningJob();
    // Act
    const { state } = cancelJob(job, undefined, context(at(30)));
    // Assess
    expect(workflowState(state, workflowAt(workflowsOf(job), 0))).toBe('cancelled');
    expect(state.cancelReason).toBeUndefined();
  });

  it('a timer that fires after the cancel, past the deadline, changes nothing', () => {
    // Prepare
    const cancelled = cancelJob(runningJob({ timeoutSeconds: 60 }), undefined, context(at(30))).state;
    // Act
    const { state, effects } = onTimerFired(cancelled, timerOf(cancelled), context(at(60)));
    // Assess
    expect(state).toBe(cancelled);
    expect(effects).toEqual([]);
  });

  it('cancel of a completed job throws JobFinishedError, code job_finished (409)', () => {
    // Prepare
    const job = runningJob();
    const completed = completeWorkflow(job, workflowAt(workflowsOf(job), 0), 'completed', context(at(10))).state;
    // Act
    const cancel = () => cancelJob(completed, undefined, context(at(20)));
    // Assess
    expect(cancel).toThrow(JobFinishedError);
    expect(cancel).toThrow(expect.objectContaining({ code: 'job_finished' }));
  });

  it('cancel of a timed-out job throws JobFinishedError', () => {
    // Prepare
    const timedOut = onTimerFired(runningJob(), { fenceToken: 1 }, context(at(60))).state;
    // Act
    const cancel = () => cancelJob(timedOut, undefined, context(at(61)));
    // Assess
    expect(cancel).toThrow(JobFinishedError);
  });
});
