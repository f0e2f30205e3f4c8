import { beforeEach, describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { onGateDecision } from '../../shared/app/on-gate-decision.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { toIso } from '../../shared/domain/time.js';
import { JobProgressReport } from '../../shared/events/job-progress-report.js';
import { at, GATE_REGION, REGION } from '../support/fixtures.js';
import { jobItemWrites, useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 60, gateRegion: GATE_REGION, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('a gate-coordinated job on the manager side, through the use cases (dynalite)', () => {
  const m = useTestManager();
  beforeEach(async () => {
    await submitJob(m.deps, body);
  });

  /** Fires the job's current wake-up at its due time, as the scheduler would. */
  async function fireCurrentWakeUp(): Promise<void> {
    const timer = m.timers.expectArmed('job-1');
    m.clock.set(timer.dueAt);
    await fireJobTimer(m.deps, timer);
  }

  it('the report-interval wake-up publishes a JobProgressReport and leaves no outbox behind', async () => {
    // Prepare
    expect(m.timers.expectArmed('job-1').dueAt).toBe(at(10));
    // Act
    await fireCurrentWakeUp();
    // Assess
    const [report, ...others] = m.bus.published;
    expect(others).toEqual([]);
    expect(JobProgressReport.parse(report?.detail)).toMatchObject({ jobId: 'job-1', region: REGION, gateRegion: GATE_REGION, fenceToken: 1 });
    const job = await m.getJob('job-1');
    expect(job.outbox).toBeUndefined();
    expect(job.timerDueAt).toBe(at(20));
  });

  it('a periodic report costs one job write: it is re-sent anyway, so it skips the outbox', async () => {
    // Prepare
    m.calls.length = 0;
    // Act
    await fireCurrentWakeUp();
    // Assess
    expect(jobItemWrites(m.calls)).toHaveLength(1);
    expect(m.bus.ofType('JobProgressReport')).toHaveLength(1);
  });

  it('a terminal decision goes through the outbox: the write carries the events, a second write clears them', async () => {
    // Prepare
    m.calls.length = 0;
    m.clock.set(at(61));
    // Act
    await onGateDecision(m.deps, {
      kind: 'JobGlobalTimeout',
      detail: { jobId: 'job-1', region: REGION, reason: 'deadline', timedOutAt: toIso(at(61)), fenceToken: 1 },
    });
    // Assess
    const writes = jobItemWrites(m.calls);
    expect(writes).toHaveLength(2);
    const outbox = (writes[0]?.input.Item as { outbox?: Array<{ detailType: string }> } | undefined)?.outbox ?? [];
    expect(outbox.map((event) => event.detailType).sort()).toEqual(['JobFinalStatus', 'JobTimedOut']);
    expect((await m.getJob('job-1')).outbox).toBeUndefined();
  });

  it('at the deadline the manager reports a local timeout and keeps the job RUNNING until the gate decides', async () => {
    // Prepare
    for (let i = 0; i < 5; i++) await fireCurrentWakeUp();
    // Act
    await fireCurrentWakeUp();
    // Assess
    expect(m.clock.now()).toBe(at(60));
    expect(m.bus.ofType('JobTimeoutReport')).toHaveLength(1);
    const job = await m.getJob('job-1');
    expect(job.status).toBe('RUNNING');
    expect(job.tracking.locallyTimedOut).toBe(true);
  });

  it('the gate\'s JobGlobalTimeout at the current token ends the job TIMED_OUT for reason global_timeout', async () => {
    // Prepare
    m.clock.set(at(61));
    // Act
    await onGateDecision(m.deps, {
      kind: 'JobGlobalTimeout',
      detail: { jobId: 'job-1', region: REGION, reason: 'deadline', timedOutAt: toIso(at(61)), fenceToken: 1 },
    });
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking).toMatchObject({ timeoutReason: 'global_timeout', globallyTimedOut: true });
    expect(m.bus.published.map((event) => event.detailType).sort()).toEqual(['JobFinalStatus', 'JobTimedOut']);
  });
});
