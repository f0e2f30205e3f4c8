import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../../shared/domain/complete-workflow.js';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import { freshBudget, requestExtension } from '../../../shared/domain/extension-budget.js';
import type { Job } from '../../../shared/domain/job.js';
import { defaultExtensionPolicy } from '../../../shared/domain/policy.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import {
  armedTimers,
  at,
  context,
  disarmedJobs,
  publishedEvents,
  runningJob,
  timerOf,
  workflowAt,
  workflowsOf,
  extendedBy,
  extensionOf,
} from '../../support/fixtures.js';

/** Seed 001 §10.7.3: a 60 s job whose worker was granted its first AD-26 extension (30 s) at 30 s. */
function jobExtendedBy30s(): Job {
  const outcome = requestExtension(freshBudget(), { currentProgress: 0.3, jobId: 'job-1' }, false, defaultExtensionPolicy);
  if (!outcome.granted) throw new Error('the first extension with progress must be granted');
  return extendedBy(runningJob({ timeoutSeconds: 60 }), 0, outcome.seconds, at(30));
}

describe('seed 001 §10.7.3: an extension moves the deadline of a 60 s job to 90 s', () => {
  it('a 30 s extension makes the effective deadline startedAt + 90 s, without touching the timer', () => {
    // Prepare
    const job = runningJob({ timeoutSeconds: 60 });
    // Act
    const { state, effects } = extensionOf(job, 0, 30, at(30));
    // Assess
    expect(effectiveDeadline(state.tracking)).toBe(at(90));
    expect(state.tracking.totalExtensionsGranted).toBe(30);
    expect(state.tracking.workersWithExtensions).toBe(1);
    expect(state.tracking.lastExtensionAt).toBe(at(30));
    expect(effects).toEqual([]);
  });

  it('the timer armed for 60 s finds the job not due and re-arms it for 90 s', () => {
    // Prepare
    const job = jobExtendedBy30s();
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(60)));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(state.timerDueAt).toBe(at(90));
    expect(armedTimers(effects)).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 1, dueAt: at(90) }]);
    expect(publishedEvents(effects)).toEqual([]);
  });

  it('at 89 s the job is still not due: the fire re-arms for 90 s and changes nothing', () => {
    // Prepare
    const rearmed = onTimerFired(jobExtendedBy30s(), { fenceToken: 1 }, context(at(60))).state;
    // Act
    const { state, effects } = onTimerFired(rearmed, timerOf(rearmed), context(at(89)));
    // Assess
    expect(state).toBe(rearmed);
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(90)]);
  });

  it('at 90 s the extended job is TIMED_OUT for reason timeout', () => {
    // Prepare
    const rearmed = onTimerFired(jobExtendedBy30s(), { fenceToken: 1 }, context(at(60))).state;
    // Act
    const { state, effects } = onTimerFired(rearmed, timerOf(rearmed), context(at(90)));
    // Assess
    expect(state.status).toBe('TIMED_OUT');
    expect(state.tracking.timeoutReason).toBe('timeout');
    expect(publishedEvents(effects, 'JobTimedOut')).toHaveLength(1);
  });

  it('completion before the extended deadline ends the job COMPLETED, and the 90 s timer fires into nothing', () => {
    // Prepare
    const job = onTimerFired(jobExtendedBy30s(), { fenceToken: 1 }, context(at(60))).state;
    const workflow = workflowAt(workflowsOf(job), 0);
    // Act
    const completed = completeWorkflow(job, workflow, 'completed', context(at(75)));
    const lateFire = onTimerFired(completed.state, timerOf(completed.state), context(at(90)));
    // Assess
    expect(completed.state.status).toBe('COMPLETED');
    expect(disarmedJobs(completed.effects)).toEqual(['job-1']);
    expect(lateFire.state).toBe(completed.state);
    expect(lateFire.effects).toEqual([]);
  });
});
