import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { progressCoalesceMs, stuckDeadline } from '../../../shared/domain/deadlines.js';
import { WorkflowMark, type Job, type Workflow } from '../../../shared/domain/job.js';
import { advanceOf, progressWrites, withWorkflowProgress, type ProgressReport } from '../../../shared/domain/record-progress.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { context, runningJob, T0, timerOf, workflowAt, workflowsOf } from '../../support/fixtures.js';

// (seed 000, problem 4): heartbeats keep a worker healthy, never a job.

const report = fc.record(
  {
    progress: fc.constantFrom(0, 0.1, 0.2, 0.5, 0.9, 1),
    step: fc.constantFrom('a', 'b', 'c'),
  },
  { requiredKeys: [] },
);

/**
 * A store that applies exactly the writes `progressWrites` asks for, as the DynamoDB conditions
 * would; the job is as the timer sees it, with the workflow's advances folded in.
 */
function apply(job: Job, workflow: Workflow, r: ProgressReport, now: number): { job: Job; workflow: Workflow } {
  const writes = progressWrites(job, workflow, r, now);
  const next = writes.advance
    ? { ...workflow, ...writes.advance, lastProgressAt: now, lastHeartbeatAt: now }
    : writes.heartbeat
      ? { ...workflow, lastHeartbeatAt: now }
      : workflow;
  return { job: withWorkflowProgress(job, next.lastProgressAt), workflow: next };
}

describe('heartbeat is not progress', () => {
  it('the stuck deadline follows the last real advance: never early; one window late, or one window after a later call that carries values; heartbeats never move it', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 600 }),
        fc.array(fc.record({ gapMs: fc.integer({ min: 0, max: 30_000 }), report }), { minLength: 1, maxLength: 40 }),
        (thresholdSeconds, calls) => {
          // Prepare: a reference model of progress, independent of the code under test
          let job = runningJob({ timeoutSeconds: 1_000_000, stuckThresholdSeconds: thresholdSeconds });
          let workflow = workflowAt(workflowsOf(job), 0);
          const windowMs = progressCoalesceMs(thresholdSeconds);
          let now = T0;
          let highest = 0;
          let lastStep: string | undefined;
          const sentSteps = new Set<string>();
          let lastAdvanceAt = T0;
          /** The last call carrying a value: an advance that was not written may be credited there. */
          let lastValuesAt = T0;
          let writesInWindow: number[] = [];
          for (const { gapMs, report: r } of calls) {
            now += gapMs;
            const newStep = r.step !== undefined && r.step !== lastStep;
            const advanced = (r.progress !== undefined && r.progress > highest) || newStep;
            if (r.progress !== undefined) highest = Math.max(highest, r.progress);
            if (r.step !== undefined) {
              lastStep = r.step;
              sentSteps.add(r.step);
            }
            if (advanced) lastAdvanceAt = now;
            const carriesValues = r.progress !== undefined || r.step !== undefined;
            if (carriesValues) lastValuesAt = now;
            const before = { clock: job.tracking.lastProgressAt, workflow };
            // Act
            ({ job, workflow } = apply(job, workflow, r, now));
            // Assess, after every call: a call without values never moves the clock; calls without a new step write at most twice a window
            if (!carriesValues) expect(job.tracking.lastProgressAt).toBe(before.clock);
            if (workflow !== before.workflow && !newStep) writesInWindow = [...writesInWindow.filter((at) => at > now - windowMs), now];
            expect(writesInWindow.length).toBeLessThanOrEqual(2);
          }
          const thresholdMs = thresholdSeconds * 1000;
          const deadline = stuckDeadline(job.tracking);
          expect(deadline).toBeGreaterThanOrEqual(lastAdvanceAt + thresholdMs);
          expect(deadline).toBeLessThanOrEqual(Math.max(lastAdvanceAt, lastValuesAt) + thresholdMs + windowMs);
          if (lastValuesAt === lastAdvanceAt) expect(deadline).toBeLessThanOrEqual(lastAdvanceAt + thresholdMs + windowMs);
          // Stored values only ever lag what the worker reported: never ahead of it.
          expect(workflow.progress ?? 0).toBeLessThanOrEqual(highest);
          if (workflow.step !== undefined) expect(sentSteps.has(workflow.step)).toBe(true);
          // A wake-up one millisecond before the true stuck moment leaves the job running.
          const early = onTimerFired({ ...job, timerDueAt: lastAdvanceAt + thresholdMs - 1 }, timerOf(job), context(lastAdvanceAt + thresholdMs - 1));
          expect(early.state.status).toBe('RUNNING');
        },
      ),
      // Enough runs to find a step left unwritten: a → c (coalesced) → a reads as no progress.
      { numRuns: 1_000 },
    );
  });

  it('only a higher value or another step is an advance; the first value must exceed 0, the first step always counts', () => {
    // Prepare
    const workflow: Workflow = { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', index: 0, incarnation: 'incarnation-1', progress: 0.5, step: 'load' };
    const fresh: Workflow = { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', index: 0, incarnation: 'incarnation-1' };
    // Act
    const cases = [
      advanceOf(workflow, {}),
      advanceOf(workflow, { progress: 0.5, step: 'load' }),
      advanceOf(workflow, { progress: 0.4 }),
      advanceOf(workflow, { progress: 0.6 }),
      advanceOf(workflow, { progress: 0.4, step: 'save' }),
      advanceOf(fresh, { progress: 0 }),
      advanceOf(fresh, { step: '0' }),
    ];
    // Assess
    expect(cases).toEqual([undefined, undefined, undefined, { progress: 0.6 }, { step: 'save' }, undefined, { step: '0' }]);
  });

  it('a finished workflow and a finished job write nothing, whatever the report', () => {
    // Prepare
    const job = runningJob();
    const workflow = workflowAt(workflowsOf(job), 0);
    // Act
    const writes = progressWrites({ ...job, status: 'CANCELLED' }, workflow, { progress: 1 }, T0 + 10_000);
    // Assess
    expect(writes).toEqual({ coalescedAdvance: false, heartbeat: false, sample: false });
    expect(() => progressWrites({ ...job, workflowMarks: WorkflowMark.completed }, workflow, { progress: 1 }, T0 + 10_000)).toThrow(/already reported/);
  });
});
