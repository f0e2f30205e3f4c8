import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundAtSweepPositionMs,
  boundOfSweptFireMs,
  DETECTION_BOUND_MS,
  SWEEP_INTERVAL_MS,
  sweptRetryEndsWithinMs,
  type SweepPace,
} from '../../../shared/app/detection-bound.js';
import { submitJob } from '../../../shared/app/submit-job.js';
import { SWEEP_CONCURRENCY, SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { TimeoutWriteFaults } from '../support/timeout-write-faults.js';
import { SlotStopwatch } from './support/slot-stopwatch.js';
import { outageCloud } from './support/outage-cloud.js';

const TIMEOUT_SECONDS = 60;
const SWEPT_AT = at(3_600);
const firedAs = (jobId: string) => `swept wake-up of ${jobId}`;

interface LostWakeUp {
  /** How long its job has been past its deadline when the sweep starts: past the grace, but not before the sweep before it. */
  overdueMs: number;
  /** How long its fire holds its slot (each try). */
  fireMs: number;
  /** Its first try is throttled; the sweep tries it again. */
  throttled: boolean;
}

const LONGEST_FIRE_MS = 3_000;
const SINCE_SWEEP_BEFORE_MS = SWEEP_GRACE_MS + SWEEP_INTERVAL_MS - 1;

/** Often the worst case: due just after the sweep before started, a fire that takes the longest. */
const lostWakeUp: fc.Arbitrary<LostWakeUp> = fc.record({
  overdueMs: fc.oneof(fc.constant(SINCE_SWEEP_BEFORE_MS), fc.integer({ min: SWEEP_GRACE_MS, max: SINCE_SWEEP_BEFORE_MS })),
  fireMs: fc.oneof(fc.constant(LONGEST_FIRE_MS), fc.integer({ min: 1, max: LONGEST_FIRE_MS })),
  throttled: fc.oneof({ weight: 4, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
});

/**
 * The bound by a fire's place in its sweep (`shared/app/detection-bound.ts`), on the real sweep over
 * the real job store (MemoryDynamo), its fires side by side in simulated time: a review found that
 * the sweep's slack covers only the fires near its start, so a full sweep's late fires end past 70 s.
 * Whatever the number of lost wake-ups and however long each fire takes, each job ends within what is
 * stated for its place, and `SweptWakeUpPastBound` counts exactly the jobs that end past 70 s.
 */
describe('a lost wake-up ends within the bound stated for its place in the sweep that fires it', () => {
  it('any number of lost wake-ups due since the sweep before, any fire times, some first tries throttled', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: SWEEP_CONCURRENCY }), fc.array(lostWakeUp, { minLength: 1, maxLength: 40, size: 'max' }), async (concurrency, lost) => {
        // Prepare: each job's own wake-up is lost; the sweep starts when job i is `overdueMs` past its deadline.
        const cloud = await outageCloud();
        const faults = new TimeoutWriteFaults();
        cloud.deps.jobs = faults.wrap(cloud.jobs);
        const jobIds = lost.map((_, i) => `lost-${i}`);
        for (const [i, { overdueMs, throttled }] of lost.entries()) {
          const jobId = `lost-${i}`;
          cloud.timers.lost.add(jobId);
          cloud.clock.set(SWEPT_AT - overdueMs - TIMEOUT_SECONDS * 1_000);
          await submitJob(cloud.deps, { jobId, timeoutSeconds: TIMEOUT_SECONDS, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
          if (throttled) faults.inject(jobId, 'fail', 1);
        }
        const fireMsOf = new Map(lost.map(({ fireMs }, i) => [firedAs(`lost-${i}`), fireMs]));
        const stopwatch = new SlotStopwatch((what) => fireMsOf.get(what) ?? 0);
        cloud.deps.clock = stopwatch.clockFrom(SWEPT_AT);

        // Act: a budget that fits every fire (what it leaves is SweepDueLeft's, tested apart).
        await sweepJobTimers(cloud.deps, { stopwatch, concurrency, budgetMs: 3_600_000 });

        // Assess
        const pace: SweepPace = { concurrency, fireMs: Math.max(...lost.map(({ fireMs }) => fireMs)) };
        const fires = stopwatch.calls.filter((call) => call.what.startsWith(firedAs('')));
        const firstTries = fires.filter((call, i) => fires.findIndex((other) => other.what === call.what) === i);
        const retries = fires.filter((call) => !firstTries.includes(call));
        const outcomes = jobIds.map((jobId, i) => {
          const { overdueMs, throttled } = lost[i] ?? { overdueMs: 0, throttled: false };
          const position = firstTries.findIndex((call) => call.what === firedAs(jobId)) + 1;
          const rank = retries.findIndex((call) => call.what === firedAs(jobId)) + 1;
          const lastTry = throttled ? retries[rank - 1] : firstTries[position - 1];
          const lateMs = SWEPT_AT + (lastTry?.endedAtMs ?? Number.POSITIVE_INFINITY) - (SWEPT_AT - overdueMs);
          const statedMs = throttled ? boundOfSweptFireMs(sweptRetryEndsWithinMs(lost.length, rank, pace)) : boundAtSweepPositionMs(position, pace);
          return { jobId, lateMs, statedMs };
        });
        expect(firstTries.length).toBe(lost.length);
        expect(outcomes.filter(({ lateMs, statedMs }) => !(lateMs <= statedMs))).toEqual([]);
        const statuses = await Promise.all(jobIds.map(async (jobId) => (await cloud.jobs.getJob(jobId))?.status));
        expect(statuses).toEqual(jobIds.map(() => 'TIMED_OUT'));
        expect(cloud.telemetry.count('SweptWakeUpPastBound')).toBe(outcomes.filter(({ lateMs }) => lateMs > DETECTION_BOUND_MS).length);
      }),
      { numRuns: 40 },
    );
  }, 60_000);
});
