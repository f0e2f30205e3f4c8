import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { SQS_MAX_DELAY_SECONDS } from '../../shared/adapters/aws/sqs-scheduler-timers.js';
import type { ManagerDeps } from '../../shared/app/manager-deps.js';
import { at } from '../support/fixtures.js';
import { armingLateOnce, SchedulerCloud } from '../support/scheduler-cloud.js';
import { submit, tokenOf, useTestManager } from './support/test-manager.js';

/**
 * On AWS a wake-up more than 15 minutes ahead is an EventBridge Scheduler schedule. A decision of
 * the old leader (fence 1) whose arm lands after a takeover's (a slow Lambda, or the loser of
 * Scheduler's ConflictException pause) must not replace the new leader's schedule: its wake-up would
 * be dropped as stale, and the job would wait for the sweep instead of ending at its deadline.
 */
describe("an old leader's schedule landing after the takeover's (Scheduler and SQS in memory, dynalite)", () => {
  const m = useTestManager();
  const cloud = new SchedulerCloud();
  cloud.install();

  it('the new leader keeps its wake-up: the job is timed out as stuck at its stuck deadline, without the sweep', async () => {
    // Prepare: a stuck threshold of an hour, so every wake-up is a schedule
    const timers = cloud.timers(m.clock);
    const deps: ManagerDeps = { ...m.deps, timers };
    const submitted = await submit({ ...m, deps }, { jobId: 'job-1', timeoutSeconds: 7_200, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    m.clock.set(at(1_800));
    await reportProgress(deps, { jobId: 'job-1', workflowId: 'wf-1', workerId: 'worker-a', progress: 0.5, token: tokenOf(submitted, 'wf-1') });
    // The old leader: its re-arm for the stuck deadline the progress moved lands after a takeover's arm
    const farAhead = (timer: { dueAt: number }) => timer.dueAt - m.clock.now() > SQS_MAX_DELAY_SECONDS * 1000;
    const oldLeader: ManagerDeps = { ...deps, timers: armingLateOnce(timers, farAhead, () => takeOverJob(deps, 'job-1')) };
    const firstDueAt = (await m.getJob('job-1')).timerDueAt ?? 0;
    await cloud.deliverUntil(firstDueAt, (timer) => fireJobTimer(oldLeader, timer));
    const afterRace = await m.getJob('job-1');
    const stuckAt = afterRace.timerDueAt ?? 0;

    // Act: every wake-up Scheduler and SQS hold comes, up to the stuck deadline
    await cloud.deliverUntil(stuckAt, (timer) => fireJobTimer(deps, timer));

    // Assess
    expect(afterRace).toMatchObject({ status: 'RUNNING', tracking: { fenceToken: 2 } });
    expect(stuckAt).toBeGreaterThan(at(1_800 + 3_600));
    expect(await m.getJob('job-1')).toMatchObject({ status: 'TIMED_OUT', finishedAt: stuckAt, tracking: { fenceToken: 2, timeoutReason: 'stuck' } });
  });
});
