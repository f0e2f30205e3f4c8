import { describe, expect, it } from 'vitest';
import type { GateJob } from '../../../shared/domain/gate/gate-job.js';
import { gateJobStatus } from '../../../shared/domain/gate/gate-job-status.js';
import { onFinalStatus } from '../../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../../shared/domain/gate/on-gate-timer-fired.js';
import { markRegionSubmitted } from '../../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../../shared/domain/gate/start-gate-job.js';
import type { GatePolicy } from '../../../shared/domain/gate/gate-policy.js';
import { AP, EU, T0, US, decidedGateDisarm, finalStatus, globalTimeoutsByRegion, policy, runningGateJob, seconds } from './gate-fixtures.js';

/**
 * a lost JobFinalStatus. The gate's decision, re-sent every 10 s to the regions
 * without a final status (for up to an hour), is also its question: a region that already finished
 * answers with its final status. When every region turns out to have ended on its own (none timed
 * out), the gate's timeout changed nothing and its view ends with the regions' outcome.
 */
const fire = (job: GateJob, now: number, p: GatePolicy) =>
  onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, ...(job.timerDueAt !== undefined ? { dueAt: job.timerDueAt } : {}) }, now, p);

describe('a final status lost on the way to the gate', () => {
  // The gate decides the 300 s global deadline only the report grace after it: an extension granted in a
  // region just before the deadline, or whose immediate report to the gate was lost and is carried by the
  // region's next periodic report (every 10 s), must reach the gate before the gate declares. A region
  // that reaches its own deadline still reports its local timeout at once (condition 2, not delayed).
  // AP, silent since before the deadline, might have granted an extension the gate never heard of: the
  // gate waits one more grace for its reports (unheard-extensions.test.ts), then declares.
  const dueAt = T0 + seconds(300 + policy.extensionReportGraceSeconds);
  const decidedAt = dueAt + seconds(policy.extensionReportGraceSeconds);
  /** The wake-up at the due time, which waits for the silent region, then the one at the wait's end. */
  const decide = (job: GateJob) => fire(fire(job, dueAt, policy).state, decidedAt, policy);

  /** US and EU completed and were heard; AP completed too but its JobFinalStatus was lost. */
  function apCompletionLost(): GateJob {
    let job = runningGateJob(300);
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(100), policy).state;
    job = onFinalStatus(job, finalStatus(EU, 'COMPLETED'), T0 + seconds(110), policy).state;
    return job;
  }

  it('at the global deadline plus the report grace, and one more grace for the silent region\'s reports, the gate asks it (its decision), and only it', () => {
    // Prepare
    const job = apCompletionLost();

    // Act
    const early = onGateTimerFired(job, { fenceToken: job.timeoutFenceToken }, T0 + seconds(300), policy);
    const waiting = fire(job, dueAt, policy);
    const { state, effects } = fire(waiting.state, decidedAt, policy);

    // Assess
    expect(early.state.globallyTimedOut).toBe(false);
    expect(globalTimeoutsByRegion(early.effects)).toEqual({});
    expect(waiting.state.globallyTimedOut).toBe(false);
    expect(globalTimeoutsByRegion(waiting.effects)).toEqual({});
    expect(globalTimeoutsByRegion(effects)).toEqual({ [AP]: 1 });
    // Declared, but no region confirmed it: the gate does not report TIMED_OUT while AP may answer COMPLETED.
    expect(state.globallyTimedOut).toBe(true);
    expect(gateJobStatus(state)).toBe('RUNNING');
  });

  it("the silent region's answer (COMPLETED) ends the gate's view COMPLETED, with no timer left", () => {
    // Prepare
    const asked = decide(apCompletionLost()).state;

    // Act
    const { state, effects } = onFinalStatus(asked, finalStatus(AP, 'COMPLETED'), decidedAt + seconds(1), policy);

    // Assess
    expect(gateJobStatus(state)).toBe('COMPLETED');
    expect(state.globallyTimedOut).toBe(false);
    expect(state.timeoutReason).toBeUndefined();
    expect(state.withdrawnTimeout).toEqual({ reason: asked.timeoutReason, decidedAt });
    expect(state.timerDueAt).toBeUndefined();
    expect(effects).toEqual([decidedGateDisarm()]);
  });

  it('a late COMPLETED after a timeout that did end another region keeps the job TIMED_OUT', () => {
    // Prepare: US completed (heard), AP timed out by the gate's decision, EU completed but was not heard
    let job = runningGateJob(300);
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(100), policy).state;
    job = decide(job).state;
    job = onFinalStatus(job, finalStatus(AP, 'TIMED_OUT', { timeoutReason: 'global_timeout' }), decidedAt + seconds(1), policy).state;

    // Act
    const { state } = onFinalStatus(job, finalStatus(EU, 'COMPLETED'), decidedAt + seconds(2), policy);

    // Assess
    expect(gateJobStatus(state)).toBe('TIMED_OUT');
    expect(state.globallyTimedOut).toBe(true);
    expect(state.dcStatus).toEqual({ [US]: 'completed', [EU]: 'completed', [AP]: 'timed_out' });
  });

  it('asking is bounded: the re-sends stop after an hour\'s worth of them', () => {
    // Prepare
    let job = decide(apCompletionLost()).state;
    let asks = 0;

    // Act: fire the re-send wake-up every time it is due, for two hours
    for (let step = 0; step < 1_000 && job.timerDueAt !== undefined && job.timerDueAt <= decidedAt + seconds(7_200); step++) {
      const { state, effects } = onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, dueAt: job.timerDueAt }, job.timerDueAt, policy);
      asks += Object.keys(globalTimeoutsByRegion(effects)).length;
      job = state;
    }

    // Assess
    expect(job.timerDueAt).toBeUndefined();
    expect(asks).toBe(policy.rebroadcastGiveUpSeconds / policy.rebroadcastSeconds);
    expect(job.rebroadcasts).toBe(asks);
  });

  it('a region settled timed_out unheard at the give-up that turns out to have completed (a resent submit) ends the job COMPLETED, not TIMED_OUT', () => {
    const quick: GatePolicy = { ...policy, rebroadcastSeconds: 10, rebroadcastGiveUpSeconds: 20 };
    // Prepare: EU accepted the job but its submit answer was lost (still `submitting` at the gate) and
    // its messages to the gate are partitioned; US accepted and completed.
    let job = startGateJob({ jobId: 'job-1', timeoutSeconds: 60, datacenters: { [US]: {}, [EU]: {} } }, 'd', T0, quick).state;
    job = markRegionSubmitted(job, US, 1).state;
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), T0 + seconds(30), quick).state;
    // The global deadline passes without a word from EU: the gate declares, re-sends, gives up and
    // settles EU, never heard from, as `timed_out`.
    let now = job.timerDueAt ?? 0;
    job = fire(job, now, quick).state;
    for (let i = 0; i < 5 && job.timerDueAt !== undefined; i++) {
      now = job.timerDueAt;
      job = fire(job, now, quick).state;
    }
    expect(job.dcSettledUnheard).toEqual([EU]);

    // Act: the partition heals and the user resends the submit (as the 503 told them): EU answers, the
    // gate replies with its decision, and EU, whose job had COMPLETED, answers with its final status.
    const resent = markRegionSubmitted(job, EU, 1);
    expect(globalTimeoutsByRegion(resent.effects)).toEqual({ [EU]: 1 });
    const after = onFinalStatus(resent.state, finalStatus(EU, 'COMPLETED'), now + seconds(60), quick).state;

    // Assess: the job completed in every region; the gate must not report it TIMED_OUT.
    expect(gateJobStatus(after)).toBe('COMPLETED');
  });
});
