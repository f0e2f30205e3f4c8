import { describe, expect, it } from 'vitest';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import type { Job } from '../../../shared/domain/job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { grantOf, retireWorkerGrants } from '../../../shared/domain/worker-extensions.js';
import { armedTimers, at, context, extendedBy, extensionOf, runningJob, timerOf } from '../../support/fixtures.js';

/** A 60 s job of two workers: worker 0 was granted 30 s, worker 1 15 s (effective deadline 105 s). */
function jobWithTwoExtensions(): Job {
  const job = runningJob({ timeoutSeconds: 60, workers: ['worker-a', 'worker-b'] });
  return extendedBy(extendedBy(job, 0, 30, at(10)), 1, 15, at(20));
}

const FAILED = Number.MAX_SAFE_INTEGER;

describe('seed 001 §10.7.9: a failed worker\'s extensions stop counting', () => {
  it('retiring removes only that worker\'s grant and recomputes the totals', () => {
    // Prepare
    const job = jobWithTwoExtensions();
    // Act
    const { state } = retireWorkerGrants(job, 0, FAILED, context(at(30)));
    // Assess
    expect(grantOf(state, 0)).toBeUndefined();
    expect(grantOf(state, 1)?.seconds).toBe(15);
    expect(state.tracking).toMatchObject({ totalExtensionsGranted: 15, maxWorkerExtension: 15, workersWithExtensions: 1 });
    expect(effectiveDeadline(state.tracking)).toBe(at(75));
  });

  it('retiring for a worker without grants on the job, or with a grant of a newer budget, changes nothing', () => {
    // Prepare
    const job = jobWithTwoExtensions();
    // Act
    const none = retireWorkerGrants(job, 2, FAILED, context(at(30)));
    const newer = retireWorkerGrants(job, 0, 0, context(at(30)));
    // Assess
    expect(none).toMatchObject({ state: job, ignored: 'no_grants_to_retire' });
    expect(newer).toMatchObject({ state: job, ignored: 'no_grants_to_retire' });
  });

  it('retiring grants re-arms the timer for the earlier deadline', () => {
    // Prepare: the timer was moved to 105 s by earlier wake-ups
    const job = { ...jobWithTwoExtensions(), timerDueAt: at(105) };
    // Act
    const { state, effects } = retireWorkerGrants(job, 0, FAILED, context(at(30)));
    // Assess
    expect(state.timerDueAt).toBe(at(75));
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(75)]);
  });

  it('an extension for a job where the worker has no active workflow is not recorded', () => {
    // Prepare
    const job = { ...runningJob({ workers: ['worker-a', 'worker-b'] }), workflowMarks: 'ca' };
    // Act
    const { state, ignored } = extensionOf(job, 0, 30, at(10));
    // Assess
    expect(state).toBe(job);
    expect(ignored).toBe('worker_has_no_active_workflow');
  });

  it('a healthy worker\'s extension keeps the job alive at its base deadline: the fire re-arms', () => {
    // Prepare
    const job = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 30, at(10));
    // Act
    const { state } = onTimerFired(job, timerOf(job), context(at(60)));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(state.timerDueAt).toBe(at(90));
  });

  it('a failed worker\'s extension does not keep the job alive when the timer fires at the base deadline', () => {
    // Prepare
    const job = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 30, at(10));
    // Act
    const { state } = onTimerFired(job, timerOf(job), context(at(60)), [{ workerIndex: 0, epochBefore: FAILED }]);
    // Assess
    expect(state.status).toBe('TIMED_OUT');
    expect(state.tracking.timeoutReason).toBe('timeout');
    expect(state.tracking.totalExtensionsGranted).toBe(0);
  });

  it('dropping a failed worker\'s extension before the deadline stores the cleanup and re-arms for the earlier deadline', () => {
    // Prepare
    const job = jobWithTwoExtensions();
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(70)), [{ workerIndex: 0, epochBefore: FAILED }]);
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(grantOf(state, 0)).toBeUndefined();
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(75)]);
  });
});

describe('a grant replaces the worker\'s previous one on a job, and applies at most once', () => {
  it('the same grant again, or an older one, changes nothing; a grant of a newer budget replaces the old budget\'s total', () => {
    // Prepare
    const first = extendedBy(runningJob({ timeoutSeconds: 60 }), 0, 30, at(10), { epoch: 0, count: 1 });
    const second = extendedBy(first, 0, 45, at(11), { epoch: 0, count: 2 });
    // Act
    const repeated = extensionOf(second, 0, 45, at(12), { epoch: 0, count: 2 });
    const older = extensionOf(second, 0, 30, at(12), { epoch: 0, count: 1 });
    const afterRecovery = extensionOf(second, 0, 30, at(12), { epoch: 1, count: 1 });
    // Assess
    expect(repeated).toMatchObject({ state: second, ignored: 'grant_already_applied' });
    expect(older).toMatchObject({ state: second, ignored: 'grant_already_applied' });
    expect(second.tracking.totalExtensionsGranted).toBe(45);
    // Finding 1: a fresh budget never adds to the old one's grants on the same job.
    expect(afterRecovery.state.tracking.totalExtensionsGranted).toBe(30);
  });
});
