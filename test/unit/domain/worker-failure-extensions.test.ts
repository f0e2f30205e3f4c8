import { describe, expect, it } from 'vitest';
import { effectiveDeadline } from '../../../shared/domain/deadlines.js';
import type { Job } from '../../../shared/domain/job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { cleanupWorkerExtensions, recordWorkerExtension } from '../../../shared/domain/worker-extensions.js';
import { armedTimers, at, context, runningJob, timerOf } from '../../support/fixtures.js';

/** A 60 s job of two workers: worker-a was granted 30 s, worker-b 15 s (effective deadline 105 s). */
function jobWithTwoExtensions(): Job {
  const job = runningJob({ timeoutSeconds: 60, workers: ['worker-a', 'worker-b'] });
  const withA = recordWorkerExtension(job, 'worker-a', [0], 30, at(10)).state;
  return recordWorkerExtension(withA, 'worker-b', [1], 15, at(20)).state;
}

describe('seed 001 §10.7.9: a failed worker\'s extensions stop counting', () => {
  it('cleanup removes only the failed worker\'s extensions and recomputes the totals', () => {
    // Prepare
    const job = jobWithTwoExtensions();
    // Act
    const { state } = cleanupWorkerExtensions(job, 'worker-a');
    // Assess
    expect(state.tracking.extensionsByWorker).toEqual({ 'worker-b': 15 });
    expect(state.tracking.totalExtensionsGranted).toBe(15);
    expect(state.tracking.maxWorkerExtension).toBe(15);
    expect(effectiveDeadline(state.tracking)).toBe(at(75));
  });

  it('cleanup for a worker without extensions on the job changes nothing', () => {
    // Prepare
    const job = jobWithTwoExtensions();
    // Act
    const { state, ignored } = cleanupWorkerExtensions(job, 'worker-c');
    // Assess
    expect(state).toBe(job);
    expect(ignored).toBe('no_extensions_of_worker');
  });

  it('an extension for a job where the worker has no active workflow is not recorded', () => {
    // Prepare
    const job = { ...runningJob({ workers: ['worker-a', 'worker-b'] }), workflowMarks: 'ca' };
    // Act
    const { state, ignored } = recordWorkerExtension(job, 'worker-a', [0], 30, at(10));
    // Assess
    expect(state).toBe(job);
    expect(ignored).toBe('worker_has_no_active_workflow');
  });

  it('a healthy worker\'s extension keeps the job alive at its base deadline: the fire re-arms', () => {
    // Prepare
    const job = recordWorkerExtension(runningJob({ timeoutSeconds: 60 }), 'worker-a', [0], 30, at(10)).state;
    // Act
    const { state } = onTimerFired(job, timerOf(job), context(at(60)));
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(state.timerDueAt).toBe(at(90));
  });

  it('a failed worker\'s extension does not keep the job alive when the timer fires at the base deadline', () => {
    // Prepare
    const job = recordWorkerExtension(runningJob({ timeoutSeconds: 60 }), 'worker-a', [0], 30, at(10)).state;
    // Act
    const { state } = onTimerFired(job, timerOf(job), context(at(60)), ['worker-a']);
    // Assess
    expect(state.status).toBe('TIMED_OUT');
    expect(state.tracking.timeoutReason).toBe('timeout');
    expect(state.tracking.totalExtensionsGranted).toBe(0);
  });

  it('dropping a failed worker\'s extension before the deadline stores the cleanup and re-arms for the earlier deadline', () => {
    // Prepare
    const job = jobWithTwoExtensions();
    // Act
    const { state, effects } = onTimerFired(job, timerOf(job), context(at(70)), ['worker-a']);
    // Assess
    expect(state.status).toBe('RUNNING');
    expect(state.tracking.extensionsByWorker).toEqual({ 'worker-b': 15 });
    expect(armedTimers(effects).map((timer) => timer.dueAt)).toEqual([at(75)]);
  });
});

describe('a grant is applied to a job at most once', () => {
  it('the same grant again, or an older one, changes nothing; a grant of a newer budget applies', () => {
    // Prepare
    const first = recordWorkerExtension(runningJob({ timeoutSeconds: 60 }), 'worker-a', [0], 30, at(10), { epoch: 0, count: 1 }).state;
    const second = recordWorkerExtension(first, 'worker-a', [0], 15, at(11), { epoch: 0, count: 2 }).state;
    // Act
    const repeated = recordWorkerExtension(second, 'worker-a', [0], 15, at(12), { epoch: 0, count: 2 });
    const older = recordWorkerExtension(second, 'worker-a', [0], 30, at(12), { epoch: 0, count: 1 });
    const afterRecovery = recordWorkerExtension(second, 'worker-a', [0], 30, at(12), { epoch: 1, count: 1 });
    // Assess
    expect(repeated).toMatchObject({ state: second, ignored: 'grant_already_applied' });
    expect(older).toMatchObject({ state: second, ignored: 'grant_already_applied' });
    expect(second.tracking.totalExtensionsGranted).toBe(45);
    expect(afterRecovery.state.tracking.totalExtensionsGranted).toBe(75);
  });
});
