import { describe, expect, it } from 'vitest';
import { TIMER_SHARDS } from '../../../shared/adapters/aws/jobs-table.js';
import { DETECTION_BOUND_MS } from '../../../shared/app/detection-bound.js';
import { fireManagerTimer } from '../../../shared/app/fire-manager-timer.js';
import { submitJob } from '../../../shared/app/submit-job.js';
import { SWEEP_FIRE_LIMIT_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { FakeStopwatch } from './support/fake-stopwatch.js';
import { outageCloud } from './support/outage-cloud.js';
import { idsInShard } from '../support/ids-in-shard.js';

const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];
/** A PutEvents call to a black-holed endpoint: it never returns. */
const hangingBus = { publish: () => new Promise<void>(() => {}) };

/**
 * Review finding F4: the SDK clients had no time limits and the sweep fired in groups of 8, each
 * waiting for its slowest; a publish that never returned never moved its entry, so every minute's
 * sweep took the same oldest outbox retries first and was killed on them: a running job whose
 * wake-up was lost stayed RUNNING forever. Now every fire has its own limit (`SWEEP_FIRE_LIMIT_MS`)
 * in a pool of 8, a finished item's entry moves later before its publish, and running jobs'
 * entries are read first. (The SDK calls themselves are cut at 2–3 s: `aws-clients.ts`.)
 */
describe('the backstop sweep while the bus hangs (a black-holed endpoint)', () => {
  it('outbox retries stuck on a hung publish do not wedge the sweep: a running job whose wake-up was lost ends by its deadline + 70 s', async () => {
    // Prepare: 8 jobs (once one sweep chunk) time out while the bus fails fast; each keeps its
    // JobTimedOut with a retry at T0 + 90 s, in index shard 0.
    const stopwatch = new FakeStopwatch();
    const cloud = await outageCloud();
    cloud.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    const finished = idsInShard(0, 8, 'finished');
    for (const jobId of finished) await submitJob(cloud.deps, { jobId, timeoutSeconds: 60, workflows });
    // One running job in the last shard whose own wake-up is lost.
    const [lost] = idsInShard(TIMER_SHARDS - 1, 1, 'running');
    if (!lost) throw new Error('no id in the last shard');
    cloud.timers.lost.add(lost);
    await submitJob(cloud.deps, { jobId: lost, timeoutSeconds: 100, workflows });
    cloud.clock.set(at(60));
    for (const timer of cloud.timers.takeDue(at(60))) await fireManagerTimer(cloud.deps, timer);
    // Their retries' own wake-ups are lost too: only the sweep is left.
    cloud.timers.takeDue(at(3_600));

    // Act: from now on a PutEvents call never comes back; the sweep runs at minute 2.
    cloud.deps.bus = hangingBus;
    cloud.clock.set(at(2 * 60 + 1));
    await sweepJobTimers(cloud.deps, { stopwatch });

    // Assess: the sweep ended; the running job timed out in it; every finished job's entry moved past this sweep.
    const job = await cloud.jobs.getJob(lost);
    expect(job?.status).toBe('TIMED_OUT');
    expect(job?.finishedAt ?? Number.POSITIVE_INFINITY).toBeLessThanOrEqual(at(100) + DETECTION_BOUND_MS);
    const retries = await Promise.all(finished.map(async (id) => (await cloud.jobs.getJob(id))?.timerDueAt ?? 0));
    expect(retries.every((dueAt) => dueAt > at(2 * 60 + 1))).toBe(true);
  });

  it('a fire that hangs is cut at its own limit and backed off, and the sweep fires the overdue wake-ups behind it', async () => {
    // Prepare: 20 running jobs whose wake-ups were lost, all overdue; every publish hangs, so each
    // fire writes its timeout and then never returns.
    const stopwatch = new FakeStopwatch();
    const cloud = await outageCloud();
    const jobIds = Array.from({ length: 20 }, (_, i) => `lost-${i}`);
    for (const jobId of jobIds) {
      cloud.timers.lost.add(jobId);
      await submitJob(cloud.deps, { jobId, timeoutSeconds: 60, workflows });
    }
    cloud.deps.bus = hangingBus;
    cloud.clock.set(at(121));

    // Act
    const { fired } = await sweepJobTimers(cloud.deps, { stopwatch });

    // Assess: every fire was cut at its limit (8 in flight: 3 rounds of the limit), and none held the others.
    const jobs = await Promise.all(jobIds.map((id) => cloud.jobs.getJob(id)));
    expect(fired).toBe(20);
    expect(stopwatch.cut).toBe(20);
    expect(jobs.map((job) => job?.status)).toEqual(jobIds.map(() => 'TIMED_OUT'));
    // Each still owes its JobTimedOut: its retry entry stands, after this sweep.
    expect(jobs.every((job) => (job?.outbox ?? []).length === 1 && (job?.timerDueAt ?? 0) > at(121))).toBe(true);
    expect(cloud.telemetry.logs.filter((log) => log.message === 'swept wake-up failed; backing it off').length).toBe(20);
    expect(String(cloud.telemetry.logs.find((log) => log.message === 'swept wake-up failed; backing it off')?.attributes?.['error'])).toContain(`${SWEEP_FIRE_LIMIT_MS} ms`);
  });
});
