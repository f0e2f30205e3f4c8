import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../../shared/domain/complete-workflow.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { JobFinishedError } from '../../../shared/domain/errors.js';
import { isTerminal, WorkflowMark, type Job, type Workflow } from '../../../shared/domain/job.js';
import { latestAdvanceAt, withWorkflowProgress } from '../../../shared/domain/record-progress.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { armedTimers, at, context, runningJob, T0, timerOf, workflowAt, workflowsOf } from '../../support/fixtures.js';

// Two workflows, far from the overall deadline: only the stuck rule (120 s + the 5 s window) can end the job.
const workers = ['worker-a', 'worker-b'];
const longJob = (): Job => runningJob({ workers, timeoutSeconds: 3_600, stuckThresholdSeconds: 120 });

describe('seed 001 §10.6.3: a workflow outcome is progress of its job', () => {
  it('an outcome at 100 s makes the stuck wake-up at 125 s re-arm for 225 s instead of timing the job out', () => {
    // Prepare: neither workflow ever advanced; workflow A reports its outcome, B is in a long step
    const job = longJob();
    const halfDone = completeWorkflow(job, workflowAt(workflowsOf(job, workers), 0), 'completed', context(at(100))).state;
    // Act
    const { state, effects } = onTimerFired(halfDone, timerOf(halfDone), context(at(125)));
    // Assess
    expect(job.timerDueAt).toBe(at(125));
    expect(state.status).toBe('RUNNING');
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(225)]);
  });

  it('the outcome resets the stuck clock only: the deadline, the grants and the armed wake-up stay as they were', () => {
    // Prepare
    const job = longJob();
    // Act
    const { state, effects } = completeWorkflow(job, workflowAt(workflowsOf(job, workers), 0), 'failed', context(at(100)));
    // Assess
    expect(state.tracking).toEqual({ ...job.tracking, lastProgressAt: at(100) });
    expect(effectiveDeadline(state.tracking)).toBe(effectiveDeadline(job.tracking));
    expect(state.timerDueAt).toBe(job.timerDueAt);
    expect(effects).toEqual([]);
  });

  it('an outcome decided on a clock behind the stored progress never moves the stuck clock back', () => {
    // Prepare
    const job = { ...longJob(), tracking: { ...longJob().tracking, lastProgressAt: at(110) } };
    // Act
    const { state } = completeWorkflow(job, workflowAt(workflowsOf(job, workers), 0), 'completed', context(at(100)));
    // Assess
    expect(state.tracking.lastProgressAt).toBe(at(110));
  });

  it('a repeated outcome changes nothing: the stuck clock stays at the first one', () => {
    // Prepare
    const job = longJob();
    const workflow = workflowAt(workflowsOf(job, workers), 0);
    const halfDone = completeWorkflow(job, workflow, 'completed', context(at(100))).state;
    // Act
    const repeat = completeWorkflow(halfDone, workflow, 'completed', context(at(120)));
    // Assess
    expect(repeat.state).toBe(halfDone);
    expect(repeat.effects).toEqual([]);
    expect(repeat.state.tracking.lastProgressAt).toBe(at(100));
  });

  it('an outcome for a job that has already ended is refused', () => {
    // Prepare
    const job = longJob();
    const timedOut = onTimerFired(job, timerOf(job), context(at(125))).state;
    // Act
    const late = () => completeWorkflow(timedOut, workflowAt(workflowsOf(job, workers), 0), 'completed', context(at(126)));
    // Assess
    expect(timedOut.tracking.timeoutReason).toBe('stuck');
    expect(late).toThrow(JobFinishedError);
  });
});

type Event = { kind: 'advance' | 'complete'; workflowIndex: number; gapMs: number } | { kind: 'fire'; gapMs: number };

const events = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constantFrom('advance' as const, 'complete' as const), workflowIndex: fc.integer({ min: 0, max: 2 }), gapMs: fc.integer({ min: 0, max: 60_000 }) }),
    fc.record({ kind: fc.constant('fire' as const), gapMs: fc.integer({ min: 0, max: 60_000 }) }),
  ),
  { maxLength: 40 },
);

describe('over any order of advances, outcomes and wake-ups', () => {
  it('no job is timed out as stuck within the threshold of its last advance or outcome, and an outcome moves no deadline', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 180 }), events, (thresholdSeconds, plan: Event[]) => {
        // Prepare: three workflows; an advance is written to its workflow alone, and a wake-up sees
        // the job with its workflows' advances folded in, as the app's reads give them
        let job = runningJob({ workers: ['worker-a', 'worker-b', 'worker-c'], timeoutSeconds: 1_000_000, stuckThresholdSeconds: thresholdSeconds });
        let workflows: Workflow[] = workflowsOf(job, ['worker-a', 'worker-b', 'worker-c']);
        let now = T0;
        let lastMovedAt = T0;
        for (const event of plan) {
          now += event.gapMs;
          if (isTerminal(job.status)) break;
          if (event.kind === 'fire') {
            // Act
            const { state } = onTimerFired(withWorkflowProgress(job, latestAdvanceAt(job, workflows)), timerOf(job), context(now));
            // Assess
            if (state.tracking.timeoutReason === 'stuck') expect(now).toBeGreaterThanOrEqual(lastMovedAt + thresholdSeconds * 1000);
            job = state;
            continue;
          }
          if (job.workflowMarks[event.workflowIndex] !== WorkflowMark.active) continue;
          if (event.kind === 'advance') {
            workflows = workflows.map((w) => (w.index === event.workflowIndex ? { ...w, lastProgressAt: now } : w));
          } else {
            const { state } = completeWorkflow(job, workflowAt(workflows, event.workflowIndex), 'completed', context(now));
            expect(effectiveDeadline(state.tracking)).toBe(effectiveDeadline(job.tracking));
            expect(state.tracking.totalExtensionsGranted).toBe(job.tracking.totalExtensionsGranted);
            job = state;
          }
          lastMovedAt = now;
        }
      }),
    );
  });
});
