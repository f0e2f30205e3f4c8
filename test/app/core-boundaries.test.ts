/**
 * Boundaries of the core (shared/domain, shared/app) that no other test pinned: each of these fails
 * under a small, realistic change (an off-by-one at a deadline, a dropped fence check, a skipped
 * retire walk) that every other test let through.
 */
import { describe, expect, it } from 'vitest';
import { stuckDeadline } from '../../shared/domain/deadlines.js';
import { onTimerFired } from '../../shared/domain/timer-fired.js';
import { grantOf } from '../../shared/domain/worker-extensions.js';
import { failsAt, newWorker, workerStatus } from '../../shared/domain/worker-health.js';
import type { GateJob } from '../../shared/domain/gate/gate-job.js';
import type { GatePolicy } from '../../shared/domain/gate/gate-policy.js';
import { onFinalStatus } from '../../shared/domain/gate/on-final-status.js';
import { onGateTimerFired } from '../../shared/domain/gate/on-gate-timer-fired.js';
import { markRegionSubmitted } from '../../shared/domain/gate/region-submission.js';
import { startGateJob } from '../../shared/domain/gate/start-gate-job.js';
import { claimItem } from '../../shared/domain/pools/claim-item.js';
import { call, claimed, freshItem, poolWith, wake } from '../unit/domain/pools/pool-fixtures.js';
import { EU, T0 as GATE_T0, US, finalStatus, globalTimeoutsByRegion, policy as gatePolicy, seconds } from '../domain/gate/gate-fixtures.js';
import { armedTimers, at, context, extendedBy, policy, runningJob } from '../support/fixtures.js';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

const FAILED = Number.MAX_SAFE_INTEGER;

describe('a wake-up drops the grants that no longer count, even when the due time does not move', () => {
  it('an early wake-up (not yet due) writes off a failed worker\'s grant though the stuck deadline stays the next due time', () => {
    // Prepare: 60 s job, stuck threshold 20 s (stuck deadline 21 s); worker 0 was granted 30 s (deadline 90 s).
    // The armed wake-up is at the stuck deadline, which is the next due time with or without the grant.
    const extended = extendedBy(runningJob({ timeoutSeconds: 60, stuckThresholdSeconds: 20 }), 0, 30, at(5));
    const job = { ...extended, timerDueAt: stuckDeadline(extended.tracking) };
    expect(job.timerDueAt).toBe(at(21));
    // Act: the job's own wake-up delivered early (a scheduler's lead, an SQS hop), worker 0 failed since
    const { state, effects } = onTimerFired(job, { fenceToken: 1, dueAt: at(21) }, context(at(15)), [{ workerIndex: 0, epochBefore: FAILED }]);
    // Assess: the failed worker's grant no longer counts on the stored job (its view, its gate reports)
    expect(grantOf(state, 0)).toBeUndefined();
    expect(state.tracking.totalExtensionsGranted).toBe(0);
    expect(state.timerDueAt).toBe(at(21));
    expect(armedTimers(effects).map((t) => t.dueAt)).toEqual([at(21)]);
  });
});

describe('failsAt is the first moment a silent worker is failed', () => {
  it('one millisecond before failsAt the worker is not failed yet; at failsAt it is', () => {
    // Prepare
    const worker = newWorker('worker-a', at(0));
    // Act
    const moment = failsAt(worker, policy());
    // Assess: a grant-lapse wake-up at failsAt must find the worker failed, or it decides on a grant that still counts
    expect(workerStatus(worker, moment - 1, policy())).toBe('suspect');
    expect(workerStatus(worker, moment, policy())).toBe('failed');
  });
});

describe('a region settled unheard at the give-up: only its current leader is answered with the decision', () => {
  const quick: GatePolicy = { ...gatePolicy, rebroadcastSeconds: 10, rebroadcastGiveUpSeconds: 20 };
  const fire = (job: GateJob, now: number) =>
    onGateTimerFired(job, { fenceToken: job.timeoutFenceToken, ...(job.timerDueAt !== undefined ? { dueAt: job.timerDueAt } : {}) }, now, quick);

  it('after the region speaks up at fence 2, a message from its replaced leader (fence 1) is ignored and sends nothing', () => {
    // Prepare: EU's submit answer was lost and it stayed silent; the gate decided, gave up and settled EU unheard.
    let job = startGateJob({ jobId: 'job-1', timeoutSeconds: 60, datacenters: { [US]: {}, [EU]: {} } }, 'd', GATE_T0, quick).state;
    job = markRegionSubmitted(job, US, 1).state;
    job = onFinalStatus(job, finalStatus(US, 'COMPLETED'), GATE_T0 + seconds(30), quick).state;
    for (let i = 0; i < 6 && job.timerDueAt !== undefined; i++) job = fire(job, job.timerDueAt).state;
    expect(job.dcSettledUnheard).toEqual([EU]);
    // EU's new leader (fence 2) speaks up and is answered with the decision
    const heard = markRegionSubmitted(job, EU, 2);
    expect(globalTimeoutsByRegion(heard.effects)).toEqual({ [EU]: 2 });
    // Act: a late message from EU's replaced leader, at fence 1
    const stale = markRegionSubmitted(heard.state, EU, 1);
    // Assess: a stale leader changes nothing and is sent nothing
    expect(stale.state).toBe(heard.state);
    expect(stale.effects).toEqual([]);
  });
});

describe('pools: an attempt over in a pool stopped at that very moment waits in the pool', () => {
  it('a timeout whose grace period ends exactly when the pool was cancelled is not retried: the item waits, reason pool_stopped', () => {
    // Prepare: 10 s agent limit, 5 s grace, retry on timeout; timed out at 10 s, grace ends at 15 s
    const running = poolWith({ agent_timeout_secs: 10, timeout_config: { timeout_action: 'retry', cleanup_grace_period_secs: 5 } });
    const item = wake(claimed(running), running, 10).state;
    expect(item.run?.terminating?.terminateBy).toBe(at(15));
    // Act: the pool was cancelled at 15 s, the very moment the grace ended
    const cancelled = { ...running, status: 'CANCELLED' as const, finishedAt: at(15) };
    const { state } = wake(item, cancelled, 20);
    // Assess: stopped by the moment of the resolution: nobody would run a retry
    expect(state).toMatchObject({ state: 'available', reason: 'pool_stopped' });
  });
});

describe('pools: only a RUNNING pool\'s items can be claimed', () => {
  it.each(['CREATING', 'COMPLETED', 'FAILED', 'CANCELLED'] as const)('an available item of a %s pool is not claimable and nothing is written', (status) => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 100 }, status);
    const item = freshItem();
    // Act
    const decision = claimItem(item, pool, { agentId: 'agent-a', kind: 'agent' }, at(1));
    // Assess
    expect(decision).toMatchObject({ state: item, ignored: 'not_claimable' });
    expect(decision.effects).toEqual([]);
  });
});

describe('pools: a repeated complete is answered alike only when it repeats the outcome that ended the attempt', () => {
  it('a complete(failed) after the attempt ended with complete(succeeded) is refused as stale and kept as a late result', () => {
    // Prepare
    const pool = poolWith({ agent_timeout_secs: 100 });
    const done = call(claimed(pool), pool, 5, { type: 'complete', outcome: 'succeeded' }).state;
    expect(done.state).toBe('succeeded');
    // Act
    const contradicting = call(done, pool, 6, { type: 'complete', outcome: 'failed', result: { why: 'changed my mind' } }, 1);
    // Assess
    expect(contradicting.refusal?.code).toBe('stale_attempt');
    expect(contradicting.state.state).toBe('succeeded');
    expect(contradicting.state.history[0]?.lateResults?.[0]).toMatchObject({ call: 'complete', result: { outcome: 'failed' } });
  });
});

describe('AD-26 reset on completion: the idle worker\'s old grants stop counting on the jobs still running (dynalite)', () => {
  const m = useTestManager();

  it('worker-a extends a 60 s job it shares with worker-b, then completes its workflow after the own timeout: the job times out then, not at the grant\'s 90 s', async () => {
    // Prepare: worker-a is granted 30 s at 10 s (deadline 90 s); worker-b keeps working
    const job = await submit(m, {
      jobId: 'job-1',
      timeoutSeconds: 60,
      stuckThresholdSeconds: 3_600,
      workflows: [
        { workflowId: 'wf-1', workerId: 'worker-a' },
        { workflowId: 'wf-2', workerId: 'worker-b' },
      ],
    });
    m.clock.set(at(10));
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token: tokenOf(job, 'wf-1'), currentProgress: 0.5 })).toMatchObject({ granted: true });
    // The wake-up at the own timeout finds the grant counting: it re-arms for 90 s
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    expect(m.timers.expectArmed('job-1').dueAt).toBe(at(90));
    // Act: worker-a's last active workflow completes at 70 s: a fresh budget, its old grant stops counting
    m.clock.set(at(70));
    await completeWorkflow(m.deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', outcome: 'completed', token: tokenOf(job, 'wf-1') });
    // Assess: the job is past its real deadline (60 s): it is re-armed for it and times out now, not at 90 s
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(0);
    const wakeUp = m.timers.expectArmed('job-1');
    expect(wakeUp.dueAt).toBe(at(60));
    await fireJobTimer(m.deps, wakeUp);
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', tracking: { timeoutReason: 'timeout' } });
  });

});

describe('AD-26 reset on recovery: a worker back from a silent failure has its old grants retired at once (dynalite)', () => {
  const m = useTestManager();

  it('a silently failed worker\'s next report gives it a fresh budget and drops its old grant from its other running job', async () => {
    // Prepare: worker-a works on job-1 and on job-2 and is granted 30 s at 10 s (on both); job-1 is then cancelled.
    const job1 = await submit(m, { jobId: 'job-1', timeoutSeconds: 1_000, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const job2 = await submit(m, { jobId: 'job-2', timeoutSeconds: 1_000, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    const token = tokenOf(job1, 'wf-1');
    m.clock.set(at(10));
    expect(await requestExtension(m.deps, { workerId: 'worker-a', token, currentProgress: 0.5 })).toMatchObject({ granted: true });
    expect((await m.getJob('job-2')).tracking.totalExtensionsGranted).toBe(30);
    await cancelJob(m.deps, 'job-1', 'done');
    // Act: worker-a, silent since 10 s (failed at about 101 s), reports on its running job-2 at 150 s
    // (a report on the cancelled job-1 is no healthcheck: it writes nothing).
    m.clock.set(at(150));
    await reportProgress(m.deps, { jobId: 'job-2', workflowId: 'wf-1', workerId: 'worker-a', token: tokenOf(job2, 'wf-1'), progress: 0.6 });
    // Assess: a fresh budget, and the old budget's grant no longer counts on job-2 (its stored deadline, view and reports)
    expect((await m.jobs.getWorker('worker-a'))?.budget).toMatchObject({ epoch: 1, count: 0 });
    expect((await m.getJob('job-2')).tracking).toMatchObject({ totalExtensionsGranted: 0, workersWithExtensions: 0 });
  });
});
