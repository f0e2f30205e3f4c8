import { describe, expect, it } from 'vitest';
import { DETECTION_BOUND_MS } from '../../../shared/app/detection-bound.js';
import { OUTBOX_RETRY_MS } from '../../../shared/app/decide-and-save.js';
import { submitJob } from '../../../shared/app/submit-job.js';
import { at, T0 } from '../../support/fixtures.js';
import { outageCloud } from './support/outage-cloud.js';

const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

/**
 * Review findings F1 and F2. During a bus outage every job that times out keeps its `JobTimedOut` in
 * its outbox with a backed-off retry. That retry used to be written only to the timer index, so only
 * the sweep fired it, oldest first, 200 a minute: the retries crowded out a running job whose own
 * wake-up was lost (201 s and 261 s past its deadline). Now the retry is armed over SQS when the
 * publish fails, and a finished item's entry sits in the index's outbox shards, read after every
 * decision shard: the sweep is left to lost wake-ups. (Harness: the real DynamoJobStore on the
 * simulator's MemoryDynamo, deployed-style timers, a once-a-minute sweep.)
 */
describe('outbox retries during a bus outage leave the backstop sweep to lost wake-ups', () => {
  it('1,000 jobs timing out while the bus and the Scheduler are down: a 20-minute job whose schedule was lost still ends by its deadline + 70 s', async () => {
    // Prepare: the bus is down for the whole test; the Scheduler too (schedules never fire).
    const cloud = await outageCloud();
    cloud.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    cloud.timers.schedulerDown = true;
    // One long job (20 min): its wake-up is a Scheduler schedule, lost. Deadline: T0 + 100 s.
    cloud.clock.set(at(100 - 1_200));
    await submitJob(cloud.deps, { jobId: 'long-job', timeoutSeconds: 1_200, stuckThresholdSeconds: 3_600, workflows });
    // 1,000 short jobs (60 s): their SQS wake-ups time them out at T0 + 60 s, each keeping its
    // JobTimedOut in its outbox with a retry at T0 + 90 s.
    cloud.clock.set(T0);
    for (let i = 0; i < 1_000; i++) await submitJob(cloud.deps, { jobId: `short-${i}`, timeoutSeconds: 60, workflows });

    // Act: 10 minutes of the region.
    await cloud.runUntil(at(600));

    // Assess
    const shorts = await Promise.all(Array.from({ length: 1_000 }, (_, i) => cloud.jobs.getJob(`short-${i}`)));
    expect(shorts.filter((job) => job?.status === 'TIMED_OUT').length).toBe(1_000);
    const long = await cloud.jobs.getJob('long-job');
    const lateByMs = (long?.finishedAt ?? Number.POSITIVE_INFINITY) - at(100);
    expect(long?.status).toBe('TIMED_OUT');
    expect(lateByMs, `ended ${lateByMs / 1_000} s after its deadline; sweeps: ${JSON.stringify(cloud.sweeps.slice(0, 8).map((s) => [(s.at - T0) / 1000, s.fired]))}`).toBeLessThanOrEqual(DETECTION_BOUND_MS);
    // The retries rode their own wake-ups: the sweeps fired only the lost one (before its retries fell due, none).
    expect(cloud.sweeps.reduce((sum, s) => sum + s.fired, 0)).toBe(1);
  }, 120_000);

  it('60 timeouts a minute through an hour-long bus outage: a job whose schedule was lost at minute 41:40 still ends by its deadline + 70 s', async () => {
    // Prepare: the bus is down throughout; the Scheduler too. A job of 40 min + 100 s whose schedule is lost.
    const cloud = await outageCloud();
    cloud.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    cloud.timers.schedulerDown = true;
    const deadline = at(40 * 60 + 100);
    await submitJob(cloud.deps, { jobId: 'long-job', timeoutSeconds: 40 * 60 + 100, stuckThresholdSeconds: 3_600, workflows });
    let submitted = 0;
    const perMinute = 60;

    // Act: a short job (60 s) every second, each timing out on its own SQS wake-up a minute later.
    await cloud.runUntil(at(60 * 60), async (now) => {
      while (submitted < ((now - T0) / 60_000) * perMinute && now < at(44 * 60)) {
        await submitJob(cloud.deps, { jobId: `short-${submitted++}`, timeoutSeconds: 60, workflows });
      }
    });

    // Assess: the backed-off retries (30 s … 15 min) never reach the sweep.
    const long = await cloud.jobs.getJob('long-job');
    const lateByMs = (long?.finishedAt ?? Number.POSITIVE_INFINITY) - deadline;
    expect(lateByMs, `${submitted} short jobs; the long job ended ${lateByMs / 1_000} s after its deadline (${long?.status})`).toBeLessThanOrEqual(DETECTION_BOUND_MS);
    expect(Math.max(...cloud.sweeps.map((s) => s.fired))).toBe(1);
  }, 300_000);

  it('a retry wake-up is armed only when a publish fails: a job that times out with the bus up arms none', async () => {
    // Prepare
    const cloud = await outageCloud();
    await submitJob(cloud.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows });
    const armedAtSubmit = cloud.timers.armed.length;

    // Act
    await cloud.runUntil(at(60 + OUTBOX_RETRY_MS / 1_000 + 60));

    // Assess: the submit's wake-up only, and the job's outbox is gone with its index entry.
    const job = await cloud.jobs.getJob('job-1');
    expect(job?.status).toBe('TIMED_OUT');
    expect(job?.outbox ?? []).toEqual([]);
    expect(job?.timerDueAt).toBeUndefined();
    expect(cloud.timers.armed.length).toBe(armedAtSubmit);
  });

  it('a failed publish arms its retry for the backed-off time, and each failed retry arms the next one', async () => {
    // Prepare: the bus is down.
    const cloud = await outageCloud();
    cloud.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    await submitJob(cloud.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows });

    // Act: the timeout at 60 s, then retries at 90 s and 150 s.
    await cloud.runUntil(at(200));

    // Assess
    const retries = cloud.timers.armed.filter((timer) => timer.dueAt > at(60)).map((timer) => (timer.dueAt - T0) / 1_000);
    expect(retries).toEqual([90, 150, 270]);
    expect(cloud.sweeps.reduce((sum, s) => sum + s.fired, 0)).toBe(0);
  });
});
