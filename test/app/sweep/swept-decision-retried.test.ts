import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import type { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import { DETECTION_BOUND_MS } from '../../../shared/app/detection-bound.js';
import { fireManagerTimer } from '../../../shared/app/fire-manager-timer.js';
import { retryDelayMs } from '../../../shared/app/retry-backoff.js';
import { submitJob } from '../../../shared/app/submit-job.js';
import { SWEEP_RETRY_MS, SWEEP_RETRY_PAUSE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { idsInShard } from '../support/ids-in-shard.js';
import { TimeoutWriteFaults, type WriteFault } from '../support/timeout-write-faults.js';
import { FakeStopwatch } from './support/fake-stopwatch.js';
import { outageCloud, type OutageCloud } from './support/outage-cloud.js';

const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

/** `count` jobs in index shard 0 whose own wake-ups are lost, due one second apart from `firstDueSeconds`. */
async function lostJobsInShard0(cloud: OutageCloud, count: number, firstDueSeconds: number): Promise<string[]> {
  const jobIds = idsInShard(0, count, 'lost');
  for (const [i, jobId] of jobIds.entries()) {
    cloud.timers.lost.add(jobId);
    await submitJob(cloud.deps, { jobId, timeoutSeconds: firstDueSeconds + i, workflows });
  }
  return jobIds;
}

const statusesOf = async (cloud: OutageCloud, jobIds: readonly string[]) => Promise.all(jobIds.map(async (jobId) => (await cloud.jobs.getJob(jobId))?.status));

/**
 * The sweep's retry of a decision wake-up whose fire failed (a throttled write, a burst of lost
 * races): once, in the same sweep, behind everything the sweep has still to fire, a pause after the
 * failure, and only while the budget has room. (Harness: the real DynamoJobStore on the simulator's
 * MemoryDynamo, a fake stopwatch for the sweep's real time.)
 */
describe('the backstop sweep tries a failed decision wake-up once more in the same sweep', () => {
  it('the retry comes after every entry still queued, no sooner than the pause after the failure, and ends the job', async () => {
    // Prepare: four lost wake-ups in one shard; the oldest one's timeout is throttled once. One slot,
    // each fire costing 100 ms of the sweep's time.
    const stopwatch = new FakeStopwatch(100);
    const cloud = await outageCloud();
    const faults = new TimeoutWriteFaults(() => stopwatch.elapsed);
    cloud.deps.jobs = faults.wrap(cloud.jobs);
    const jobIds = await lostJobsInShard0(cloud, 4, 60);
    const [oldest, ...others] = jobIds as [string, ...string[]];
    faults.inject(oldest, 'fail', 1);
    cloud.clock.set(at(120));

    // Act
    const { fired } = await sweepJobTimers(cloud.deps, { stopwatch, concurrency: 1 });

    // Assess
    expect(fired).toBe(4);
    expect(faults.log.map((entry) => entry.jobId)).toEqual([oldest, ...others, oldest]);
    const [failure, retry] = faults.log.filter((entry) => entry.jobId === oldest);
    expect((retry?.at ?? 0) - (failure?.at ?? 0)).toBeGreaterThanOrEqual(SWEEP_RETRY_PAUSE_MS);
    expect(await statusesOf(cloud, jobIds)).toEqual(jobIds.map(() => 'TIMED_OUT'));
    expect((await cloud.jobs.getJob(oldest))?.timerFailures).toBeUndefined();
  });

  it('a retry the budget has no room left for is backed off with the sweep, due for the next one, which ends the job', async () => {
    // Prepare: as above, but each fire costs 1 s of a 4 s budget: the four first tries use it all.
    const stopwatch = new FakeStopwatch(1_000);
    const cloud = await outageCloud();
    const faults = new TimeoutWriteFaults();
    cloud.deps.jobs = faults.wrap(cloud.jobs);
    const jobIds = await lostJobsInShard0(cloud, 4, 60);
    const [oldest, ...others] = jobIds as [string, ...string[]];
    faults.inject(oldest, 'fail', 1);
    const sweep = { stopwatch, concurrency: 1, budgetMs: 4_000 };
    cloud.clock.set(at(120));

    // Act
    await sweepJobTimers(cloud.deps, sweep);
    const backedOff = await cloud.jobs.getJob(oldest);
    cloud.clock.set(at(180));
    await sweepJobTimers(cloud.deps, sweep);

    // Assess: tried once, then moved behind the others, due for the next sweep, which timed it out.
    expect(faults.triesOf(oldest)).toBe(2);
    expect(backedOff).toMatchObject({ status: 'RUNNING', timerDueAt: at(120) + SWEEP_RETRY_MS, timerFailures: 1 });
    expect(await statusesOf(cloud, others)).toEqual(others.map(() => 'TIMED_OUT'));
    expect((await cloud.jobs.getJob(oldest))?.status).toBe('TIMED_OUT');
  });

  it('an outbox-only entry whose fire fails is not tried again in the sweep and backs off doubling from its first failure, as before', async () => {
    // Prepare: a job timed out while the bus was down; its outbox retry's own wake-up is lost, so
    // the sweep finds its entry (in the outbox shards) at T0 + 90 s. Reading its item is throttled
    // once per sweep.
    const stopwatch = new FakeStopwatch();
    const cloud = await outageCloud();
    cloud.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    cloud.timers.lost.add('finished');
    await submitJob(cloud.deps, { jobId: 'finished', timeoutSeconds: 60, workflows });
    cloud.clock.set(at(60));
    const [ownWakeUp] = cloud.timers.armed;
    if (!ownWakeUp) throw new Error('no wake-up armed');
    await fireManagerTimer(cloud.deps, ownWakeUp);
    let readsToThrottle = 0;
    const throttledReads = Object.create(cloud.jobs) as DynamoJobStore;
    throttledReads.getJob = (jobId) =>
      readsToThrottle-- > 0 ? Promise.reject(new ProvisionedThroughputExceededException({ $metadata: {}, message: 'injected' })) : cloud.jobs.getJob(jobId);
    cloud.deps.jobs = throttledReads;

    // Act
    const dueAt: Array<number | undefined> = [];
    for (const sweepAt of [at(100), at(160)]) {
      cloud.clock.set(sweepAt);
      readsToThrottle = 1;
      await sweepJobTimers(cloud.deps, { stopwatch });
      dueAt.push((await cloud.jobs.getJob('finished'))?.timerDueAt);
    }

    // Assess
    expect(dueAt).toEqual([at(100) + retryDelayMs(1), at(160) + retryDelayMs(2)]);
    expect(cloud.telemetry.logs.filter((log) => log.message === 'swept wake-up failed; trying it again in this sweep')).toEqual([]);
    expect(cloud.telemetry.logs.filter((log) => log.message === 'swept wake-up failed; backing it off').length).toBe(2);
  });

  it.each<{ fault: WriteFault; triesWhenDue: number }>([
    { fault: 'fail', triesWhenDue: 2 },
    // A fire cut at its limit is not tried again in the same sweep: it still runs.
    { fault: 'hang', triesWhenDue: 1 },
  ])(
    'a poison entry ($fault) at the head of a shard is tried in three sweeps in a row, then skips sweeps, doubling; every wake-up lost behind it ends in the first sweep after its grace',
    async ({ fault, triesWhenDue }) => {
      // Prepare: one slot; sweeps at 1 s past each minute. The poison entry is due from T0 + 10 s;
      // behind it in its shard, one lost wake-up a minute, due 40 s past the minute (after the
      // poison's back-off to 30 s past the sweep, and in time for the next sweep).
      const stopwatch = new FakeStopwatch();
      const cloud = await outageCloud({ sweep: { stopwatch, concurrency: 1 } });
      const faults = new TimeoutWriteFaults(() => cloud.clock.now());
      cloud.deps.jobs = faults.wrap(cloud.jobs);
      const [poison, ...behind] = idsInShard(0, 13, 'shard-0') as [string, ...string[]];
      for (const [i, jobId] of [poison, ...behind].entries()) {
        cloud.timers.lost.add(jobId);
        await submitJob(cloud.deps, { jobId, timeoutSeconds: i === 0 ? 10 : 60 * i + 40, workflows });
      }
      faults.inject(poison, fault);

      // Act: 13 sweeps with the poison entry due (T0 + 61 s to T0 + 781 s).
      await cloud.runUntil(at(13 * 60 + 1));

      // Assess
      const sweepsWithPoisonDue = cloud.sweeps.slice(1).map((sweep) => faults.triesOf(poison, sweep.at));
      expect(sweepsWithPoisonDue).toEqual([1, 1, 1, 0, 1, 0, 0, 1, 0, 0, 0, 0, 1].map((tried) => tried * triesWhenDue));
      const lateBy = await Promise.all(behind.map(async (jobId, k) => ((await cloud.jobs.getJob(jobId))?.finishedAt ?? Number.POSITIVE_INFINITY) - at(60 * (k + 1) + 40)));
      expect(lateBy.filter((ms) => ms > DETECTION_BOUND_MS)).toEqual([]);
      // In the second sweep the poison's retry came after the wake-up lost behind it.
      expect(faults.log.filter((entry) => entry.at === at(121)).map((entry) => entry.jobId)).toEqual(fault === 'fail' ? [poison, behind[0], poison] : [poison, behind[0]]);
    },
  );
});
