import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { progressCoalesceMs, stuckDeadline } from '../../../shared/domain/deadlines.js';
import type { Job } from '../../../shared/domain/job.js';
import { progressWrites, withWorkflowProgress } from '../../../shared/domain/record-progress.js';
import { stuckWorkflows } from '../../../shared/domain/stuck-workflows.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { armedTimers, at, context, publishedEvents, runningJob, T0, timerOf, workflowAt, workflowsOf } from '../../support/fixtures.js';

// A job far from its overall deadline, so only the stuck rule can end it.
const longJob = (lastProgressAt = T0): Job =>
  runningJob({ timeoutSeconds: 3_600, stuckThresholdSeconds: 120, tracking: { lastProgressAt } });

describe('seed 001 §10.7.4: a running job without workflow progress for the stuck threshold is timed out as stuck', () => {
  it('the coalescing window of a 120 s threshold is 5 s', () => {
    // Prepare
    const thresholdSeconds = 120;
    // Act
    const windowMs = progressCoalesceMs(thresholdSeconds);
    // Assess
    expect(windowMs).toBe(5_000);
  });

  it('exactly the threshold without progress is not yet stuck, because stored progress may lag by the coalescing window', () => {
    // Prepare
    const job = { ...longJob(), timerDueAt: at(120) };
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(120)));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(125)]);
  });

  it('threshold + coalescing window without progress: TIMED_OUT for reason stuck, long before the deadline', () => {
    // Prepare
    const job = longJob();
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(125)));
    // Assess
    expect(job.timerDueAt).toBe(at(125));
    expect(state.status).toBe('TIMED_OUT');
    expect(state.tracking.timeoutReason).toBe('stuck');
    expect(publishedEvents(effects, 'JobTimedOut')[0]?.detail).toMatchObject({ reason: 'stuck' });
  });

  it('progress moves the stuck deadline: the fire at the old due time re-arms from the new lastProgressAt', () => {
    // Prepare: armed for 125 s, then progress was stored at 100 s
    const job = { ...longJob(at(100)), timerDueAt: at(125) };
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(125)));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(state.timerDueAt).toBe(at(225));
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(225)]);
  });

  it('progress read from the workflows never makes a job stuck early, and at most one coalescing window late', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.integer({ min: 0, max: 20_000 }), { minLength: 1, maxLength: 40 }),
        (thresholdSeconds, gapsMs) => {
          // Prepare: every report advances (a new step); the store applies only the writes `progressWrites`
          // asks for, and the job is as its timer sees it (the workflow's advances folded in)
          const submitted = runningJob({ timeoutSeconds: 1_000_000, stuckThresholdSeconds: thresholdSeconds });
          let workflow = workflowAt(workflowsOf(submitted), 0);
          let lastReportAt = T0;
          for (const [step, gapMs] of gapsMs.entries()) {
            lastReportAt += gapMs;
            const { advance } = progressWrites(submitted, { ...workflow, step: String(step - 1) }, { step: String(step) }, lastReportAt);
            if (advance) workflow = { ...workflow, ...advance, lastProgressAt: lastReportAt };
          }
          const job = withWorkflowProgress(submitted, workflow.lastProgressAt);
          const thresholdMs = thresholdSeconds * 1000;
          // Act
          const deadline = stuckDeadline(job.tracking);
          const justBefore = onTimerFired(job, timerOf(job), context(lastReportAt + thresholdMs - 1));
          // Assess
          expect(deadline).toBeGreaterThanOrEqual(lastReportAt + thresholdMs);
          expect(deadline).toBeLessThanOrEqual(lastReportAt + thresholdMs + progressCoalesceMs(thresholdSeconds));
          expect(justBefore.state.status).toBe('RUNNING');
        },
      ),
    );
  });

  it('seed 001 §10.6.5: active workflows without progress for the threshold are listed as stuck; finished ones are not', () => {
    // Prepare
    const job = { ...longJob(), workflowMarks: 'aac' };
    const [quiet, moving, done] = workflowsOf(job, ['worker-a', 'worker-b', 'worker-c']);
    if (!quiet || !moving || !done) throw new Error('three workflows expected');
    const workflows = [quiet, { ...moving, lastProgressAt: at(100) }, done];
    // Act
    const stuck = stuckWorkflows(job, workflows, at(150));
    // Assess
    expect(stuck.map((w) => w.workflowId)).toEqual(['wf-1']);
  });
});
