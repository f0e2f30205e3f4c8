import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../../shared/domain/complete-workflow.js';
import { WorkflowFinishedError } from '../../../shared/domain/errors.js';
import { workflowState } from '../../../shared/domain/job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import {
  at,
  context,
  disarmedJobs,
  gateCoordinatedJob,
  metricsOf,
  publishedEvents,
  runningJob,
  timerOf,
  workflowAt,
  workflowsOf,
} from '../../support/fixtures.js';

const workers = ['worker-a', 'worker-b'];

describe('seed 001 §10.7.7: completing a job stops its timeout tracking', () => {
  it('while a workflow is still active the job keeps running and its timer stays armed', () => {
    // Prepare
    const job = runningJob({ workers });
    // Act
    const { state, effects } = completeWorkflow(job, workflowAt(workflowsOf(job, workers), 0), 'completed', context(at(10)));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(state.timerDueAt).toBe(job.timerDueAt);
    expect(effects).toEqual([]);
  });

  it('the last outcome ends the job COMPLETED and disarms its timer', () => {
    // Prepare
    const job = runningJob({ workers });
    const [first, second] = workflowsOf(job, workers);
    if (!first || !second) throw new Error('two workflows expected');
    const halfDone = completeWorkflow(job, first, 'completed', context(at(10))).state;
    // Act
    const { state, effects } = completeWorkflow(halfDone, second, 'completed', context(at(20)));
    // Assess
    expect(state.status).toBe('COMPLETED');
    expect(state.finishedAt).toBe(at(20));
    expect(state.timerDueAt).toBeUndefined();
    expect(disarmedJobs(effects)).toEqual(['job-1']);
    expect(metricsOf(effects)).toEqual([{ name: 'JobFinished', dimensions: { status: 'COMPLETED' } }]);
    expect(publishedEvents(effects)).toEqual([]);
  });

  it('one failed workflow ends the job FAILED once every workflow has an outcome', () => {
    // Prepare
    const job = runningJob({ workers });
    const [first, second] = workflowsOf(job, workers);
    if (!first || !second) throw new Error('two workflows expected');
    const halfDone = completeWorkflow(job, first, 'failed', context(at(10))).state;
    // Act
    const { state } = completeWorkflow(halfDone, second, 'completed', context(at(20)));
    // Assess
    expect(state.status).toBe('FAILED');
  });

  it('a timer that fires after completion, even past the deadline, changes nothing: no zombie timeout', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 60 });
    const completed = completeWorkflow(job, workflowAt(workflowsOf(job), 0), 'completed', context(at(30))).state;
    // Act
    const { state, effects } = onTimerFired(completed, timerOf(completed), context(at(60)));
    // Assess
    expect(state).toBe(completed);
    expect(effects).toEqual([]);
  });

  it('repeating the same outcome is a no-op, so a worker may retry', () => {
    // Prepare
    const job = runningJob();
    const workflow = workflowAt(workflowsOf(job), 0);
    const completed = completeWorkflow(job, workflow, 'completed', context(at(30))).state;
    // Act
    const retry = completeWorkflow(completed, workflow, 'completed', context(at(31)));
    // Assess
    expect(retry.state).toBe(completed);
    expect(retry.effects).toEqual([]);
  });

  it('a different outcome for a workflow that already reported one is refused', () => {
    // Prepare
    const job = runningJob();
    const workflow = workflowAt(workflowsOf(job), 0);
    const completed = completeWorkflow(job, workflow, 'completed', context(at(30))).state;
    // Act
    const change = () => completeWorkflow(completed, workflow, 'failed', context(at(31)));
    // Assess
    expect(change).toThrow(WorkflowFinishedError);
    expect(workflowState(completed, workflow)).toBe('completed');
  });

  it('a gate-coordinated job tells the gate its final status', () => {
    // Prepare
    const job = gateCoordinatedJob();
    // Act
    const { effects } = completeWorkflow(job, workflowAt(workflowsOf(job), 0), 'completed', context(at(30)));
    // Assess
    expect(publishedEvents(effects, 'JobFinalStatus')[0]?.detail).toMatchObject({ status: 'COMPLETED', fenceToken: 1 });
  });
});
