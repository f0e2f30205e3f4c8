import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { onGateDecision } from '../../shared/app/on-gate-decision.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { toIso } from '../../shared/domain/time.js';
import { at, GATE_REGION, REGION } from '../support/fixtures.js';
import { InterleavingJobStore } from './support/interleaving-job-store.js';
import { sameTable, useTestManager } from './support/test-manager.js';

const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

/**
 * A takeover lands between another decision's read and its write. The
 * loser decides again on the new fence: a stale fence never changes state, and nothing is lost.
 */
describe('a takeover racing a wake-up or a gate decision (dynalite, interleaved writes)', () => {
  let store: InterleavingJobStore;
  const m = useTestManager({ store: (doc, table) => (store = new InterleavingJobStore(doc, table)) });

  it('the old leader\'s wake-up decided a timeout, the takeover wrote first: the job stays RUNNING at token 2, then the new leader times it out', async () => {
    // Prepare
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows });
    const oldWakeUp = m.timers.expectArmed('job-1');
    m.clock.set(at(60));
    store.beforeNextSave(() => takeOverJob(sameTable(m), 'job-1'));

    // Act
    await fireJobTimer(m.deps, oldWakeUp);
    const afterRace = await m.getJob('job-1');
    const newWakeUp = m.timers.expectArmed('job-1');
    await fireJobTimer(m.deps, newWakeUp);

    // Assess
    expect(afterRace).toMatchObject({ status: 'RUNNING', tracking: { fenceToken: 2 } });
    expect(newWakeUp.fenceToken).toBe(2);
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', tracking: { fenceToken: 2 } });
    expect(m.bus.ofType('JobTimedOut').map((event) => event.detail['fenceToken'])).toEqual([2]);
  });

  it('a JobGlobalTimeout at token 1 decided, the takeover wrote first: it is answered with the new token, and the re-issued decision ends the job', async () => {
    // Prepare
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, gateRegion: GATE_REGION, workflows });
    const decision = (fenceToken: number) => ({
      kind: 'JobGlobalTimeout' as const,
      detail: { jobId: 'job-1', region: REGION, reason: 'gate says so', timedOutAt: toIso(at(40)), fenceToken },
    });
    m.clock.set(at(40));
    store.beforeNextSave(() => takeOverJob(sameTable(m), 'job-1'));

    // Act
    await onGateDecision(m.deps, decision(1));
    const afterRace = await m.getJob('job-1');
    await onGateDecision(m.deps, decision(2));

    // Assess
    expect(afterRace).toMatchObject({ status: 'RUNNING', tracking: { fenceToken: 2 } });
    const transfers = m.bus.ofType('JobLeaderTransfer').map((event) => event.detail['fenceToken']);
    expect(new Set(transfers)).toEqual(new Set([2]));
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', tracking: { fenceToken: 2, timeoutReason: 'global_timeout' } });
  });
});
