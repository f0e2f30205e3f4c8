import { describe, expect, it } from 'vitest';
import { onGlobalTimeout } from '../../../shared/domain/gate-decisions.js';
import { takeOverJob } from '../../../shared/domain/take-over-job.js';
import { onTimerFired } from '../../../shared/domain/timer-fired.js';
import { JobLeaderTransfer } from '../../../shared/events/job-leader-transfer.js';
import { at, context, gateCoordinatedJob, metricsOf, publishedEvents, runningJob } from '../../support/fixtures.js';

describe('seed 001 §10.7.6: after a takeover, anything carrying the old fence token is rejected', () => {
  it('a timer with the old token, firing past the deadline, changes nothing and counts a StaleMessageRejected', () => {
    // Prepare
    const taken = takeOverJob(runningJob({ timeoutSeconds: 60 }), context(at(30))).state;
    // Act
    const { state, effects, ignored } = onTimerFired(taken, { fenceToken: 1 }, context(at(600)));
    // Assess
    expect(state).toBe(taken);
    expect(ignored).toBe('stale_timer');
    expect(effects).toEqual([{ type: 'Metric', name: 'StaleMessageRejected', dimensions: { kind: 'timer' } }]);
  });

  it('a JobGlobalTimeout with an older token is rejected and answered with a JobLeaderTransfer carrying the current token', () => {
    // Prepare
    const taken = takeOverJob(gateCoordinatedJob({ fenceToken: 1 }), context(at(30))).state;
    // Act
    const { state, effects } = onGlobalTimeout(taken, { fenceToken: 1 }, context(at(40)));
    // Assess
    expect(state).toBe(taken);
    const [correction, ...others] = publishedEvents(effects);
    expect(others).toEqual([]);
    expect(correction?.detailType).toBe('JobLeaderTransfer');
    expect(JobLeaderTransfer.parse(correction?.detail).fenceToken).toBe(2);
    expect(metricsOf(effects)).toEqual([{ name: 'StaleMessageRejected', dimensions: { kind: 'global_timeout' } }]);
  });

  it('the JobGlobalTimeout re-issued with the current token times the job out globally', () => {
    // Prepare
    const taken = takeOverJob(gateCoordinatedJob({ fenceToken: 1 }), context(at(30))).state;
    // Act
    const { state, effects } = onGlobalTimeout(taken, { fenceToken: 2 }, context(at(41)));
    // Assess
    expect(state.status).toBe('TIMED_OUT');
    expect(state.tracking.timeoutReason).toBe('global_timeout');
    expect(state.tracking.globallyTimedOut).toBe(true);
    expect(publishedEvents(effects).map((event) => event.detailType).sort()).toEqual(['JobFinalStatus', 'JobTimedOut']);
  });

  it('a JobGlobalTimeout for a job that already ended changes nothing and re-announces its final status', () => {
    // Prepare
    const ended = onGlobalTimeout(gateCoordinatedJob(), { fenceToken: 1 }, context(at(30))).state;
    // Act
    const { state, effects } = onGlobalTimeout(ended, { fenceToken: 1 }, context(at(31)));
    // Assess
    expect(state).toBe(ended);
    expect(publishedEvents(effects).map((event) => event.detailType)).toEqual(['JobFinalStatus']);
  });
});
