import { describe, expect, it } from 'vitest';
import { completeWorkflow } from '../../../shared/domain/complete-workflow.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { JobFinalStatus } from '../../../shared/events/job-final-status.js';
import { at, context, gateCoordinatedJob, publishedEvents, timerOf, workflowAt, workflowsOf } from '../../support/fixtures.js';

// Noticed last session: a gate-coordinated job whose deadline passed reports a local timeout to the
// gate and waits for its decision with `timeoutReason` stored. When its last workflow completed
// meanwhile, the job ended COMPLETED still carrying that reason (in its view and in JobFinalStatus).
// A reason is now the record of how a job timed out, so only a TIMED_OUT job keeps one.
describe('a gate-coordinated job that completes after reporting a local timeout', () => {
  it('ends COMPLETED without a timeoutReason, in its state and in JobFinalStatus', () => {
    // Prepare: the deadline passes; the manager reports the local timeout and waits for the gate
    const job = gateCoordinatedJob({ timeoutSeconds: 10 });
    const reported = onTimerFired(job, timerOf(job), context(at(10))).state;
    expect(reported.tracking).toMatchObject({ locallyTimedOut: true, timeoutReason: 'timeout' });
    // Act: its only workflow completes before the gate's decision arrives
    const { state, effects } = completeWorkflow(reported, workflowAt(workflowsOf(reported), 0), 'completed', context(at(12)));
    // Assess
    expect(state.status).toBe('COMPLETED');
    expect(state.tracking.timeoutReason).toBeUndefined();
    const final = publishedEvents(effects).find((event) => event.detailType === JobFinalStatus.detailType);
    expect(JobFinalStatus.parse(final?.detail)).not.toHaveProperty('timeoutReason');
  });
});
