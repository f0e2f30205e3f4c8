import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { onGateDecision } from '../../shared/app/on-gate-decision.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { toIso } from '../../shared/domain/time.js';
import { at, GATE_REGION, REGION, T0 } from '../support/fixtures.js';
import { submit, useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('seed 001 §10.7.5 / §10.7.6 through the use cases: takeover and stale messages (dynalite)', () => {
  const m = useTestManager();

  it('a takeover stores fence token 2, keeps startedAt and re-arms the timer under token 2', async () => {
    // Prepare
    await submit(m, body);
    m.clock.set(at(30));
    // Act
    const answer = await takeOverJob(m.deps, 'job-1');
    // Assess
    expect(answer).toEqual({ jobId: 'job-1', fenceToken: 2 });
    const job = await m.getJob('job-1');
    expect(job.tracking).toMatchObject({ fenceToken: 2, startedAt: T0 });
    expect(m.timers.expectArmed('job-1')).toEqual({ scope: 'job', jobId: 'job-1', fenceToken: 2, dueAt: at(60) });
  });

  it('the old leader\'s timer, delivered after the takeover and past the deadline, changes nothing in the store', async () => {
    // Prepare
    await submit(m, body);
    const oldTimer = m.timers.expectArmed('job-1');
    await takeOverJob(m.deps, 'job-1');
    const before = await m.snapshot();
    m.clock.set(at(120));
    // Act
    await fireJobTimer(m.deps, oldTimer);
    // Assess
    expect(await m.snapshot()).toEqual(before);
    expect(m.telemetry.metrics).toContainEqual({ name: 'StaleMessageRejected', dimensions: { kind: 'timer' } });
    expect(m.bus.published).toEqual([]);
  });

  it('the new leader\'s timer times the job out at the original deadline', async () => {
    // Prepare
    await submit(m, body);
    await takeOverJob(m.deps, 'job-1');
    const newTimer = m.timers.expectArmed('job-1');
    m.clock.set(at(60));
    // Act
    await fireJobTimer(m.deps, newTimer);
    // Assess
    expect((await m.getJob('job-1')).status).toBe('TIMED_OUT');
    expect(m.bus.ofType('JobTimedOut')[0]?.detail).toMatchObject({ fenceToken: 2, startedAt: toIso(T0) });
  });

  it('a JobGlobalTimeout with the pre-takeover token changes nothing and is answered with a JobLeaderTransfer at token 2', async () => {
    // Prepare
    await submitJob(m.deps, { ...body, gateRegion: GATE_REGION });
    await takeOverJob(m.deps, 'job-1');
    m.bus.published.length = 0;
    const before = await m.snapshot();
    // Act
    await onGateDecision(m.deps, {
      kind: 'JobGlobalTimeout',
      detail: { jobId: 'job-1', region: REGION, reason: 'gate says so', timedOutAt: toIso(at(40)), fenceToken: 1 },
    });
    // Assess
    expect(await m.snapshot()).toEqual(before);
    expect(m.bus.published.map((event) => [event.detailType, event.detail['fenceToken']])).toEqual([['JobLeaderTransfer', 2]]);
  });
});
