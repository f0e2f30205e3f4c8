import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { at } from '../support/fixtures.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * Progress reports write only their workflow; a fire that may find the job stuck folds the
 * workflows' advances into the stuck clock first (`dependsOnProgress`). That question was asked at
 * one reading of the clock and the decision taken at the next: a wake-up arriving a millisecond
 * before its due time (by the handler's clock) was "not due" at the first reading, so nothing was
 * folded in, and due at the second, so the job's stored clock alone decided: a job whose worker
 * advanced a moment ago ended TIMED_OUT as 'stuck'.
 */
describe('the stuck check when the clock moves between the fire\'s readings (dynalite)', () => {
  const m = useTestManager();

  it('a wake-up one millisecond early, the clock ticking once during the fire, folds in the worker\'s advance: the job keeps running', async () => {
    // Prepare: stuck threshold 120 s (its stuck deadline 125 s with the coalescing window), timeout
    // 600 s. The worker advances at 100 s: only its workflow item records it.
    const submitted = await submit(m, { jobId: 'job-1', timeoutSeconds: 600, stuckThresholdSeconds: 120, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(100));
    await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', token: tokenOf(submitted, 'wf-1'), progress: 0.5 });
    const wakeUp = m.timers.expectArmed('job-1');
    expect(wakeUp.dueAt).toBe(at(125));
    // The clock reads 1 ms before the due time once, then has ticked to it.
    let reads = 0;
    m.clock.now = () => (reads++ === 0 ? wakeUp.dueAt - 1 : wakeUp.dueAt);

    // Act
    await fireJobTimer(m.deps, wakeUp);

    // Assess: its worker advanced 25 s ago: not stuck.
    const job = await m.getJob('job-1');
    expect({ status: job.status, reason: job.tracking.timeoutReason }).toEqual({ status: 'RUNNING', reason: undefined });
  });
});
