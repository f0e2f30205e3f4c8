import { describe, expect, it } from 'vitest';
import { DELIVERY_SLACK_MS, DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { submitJob } from '../../../shared/app/submit-job.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { SlotStopwatch } from './support/slot-stopwatch.js';
import { outageCloud } from './support/outage-cloud.js';

const FIRE_MS = 1_000;
const DEADLINE = at(60);
const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

/**
 * Review finding: the sweep's 5 s slack covers only its first fires, so a full sweep's later fires end
 * past the 70 s bound, and nothing said so. The sweep dates each fire's end by its clock against the
 * entry's due time and counts `SweptWakeUpPastBound` (which alarms) for each that ends past the bound.
 */
/** `count` jobs whose own wake-ups are lost, past their deadline by the grace and a whole interval when the sweep starts; a second a fire. */
async function lostJobsDueJustAfterTheSweepBefore(count: number) {
  const cloud = await outageCloud();
  const jobIds = Array.from({ length: count }, (_, i) => `lost-${i}`);
  for (const jobId of jobIds) {
    cloud.timers.lost.add(jobId);
    await submitJob(cloud.deps, { jobId, timeoutSeconds: 60, stuckThresholdSeconds: 3_600, workflows });
  }
  const sweptAt = DEADLINE + SWEEP_GRACE_MS + SWEEP_INTERVAL_MS;
  const stopwatch = new SlotStopwatch(() => FIRE_MS);
  cloud.deps.clock = stopwatch.clockFrom(sweptAt);
  return { cloud, jobIds, sweptAt, stopwatch };
}

describe('SweptWakeUpPastBound counts each swept wake-up whose fire ended past its due time plus the detection bound', () => {
  it('jobs due just after the sweep before started, one slot, a second a fire: the fires that end within the 5 s slack are not counted, each one after is', async () => {
    // Prepare
    const { cloud, jobIds, sweptAt, stopwatch } = await lostJobsDueJustAfterTheSweepBefore(8);

    // Act
    await sweepJobTimers(cloud.deps, { stopwatch, concurrency: 1 });

    // Assess: fire k ends 65 + k s past the deadline; the 5th (the slack over a second a fire) exactly at the bound.
    const pastBoundMs = stopwatch.calls.map((call) => sweptAt + (call.endedAtMs ?? Number.NaN) - DEADLINE - DETECTION_BOUND_MS);
    expect(pastBoundMs).toEqual([-4_000, -3_000, -2_000, -1_000, 0, 1_000, 2_000, 3_000]);
    expect(DELIVERY_SLACK_MS / FIRE_MS).toBe(5);
    expect(cloud.telemetry.count('SweptWakeUpPastBound')).toBe(3);
    expect(cloud.telemetry.logs.filter((log) => log.level === 'error')).toEqual([
      expect.objectContaining({ attributes: expect.objectContaining({ fired: 8, pastBound: 3, worstLateMs: DETECTION_BOUND_MS + 3_000 }) }),
    ]);
    const statuses = await Promise.all(jobIds.map(async (jobId) => (await cloud.jobs.getJob(jobId))?.status));
    expect(statuses).toEqual(jobIds.map(() => 'TIMED_OUT'));
  });

  it('a sweep that ends every fire within the slack counts none and logs no error', async () => {
    // Prepare: the same 8 jobs, 8 slots: every fire ends a second after the sweep starts.
    const { cloud, stopwatch } = await lostJobsDueJustAfterTheSweepBefore(8);

    // Act
    const { fired } = await sweepJobTimers(cloud.deps, { stopwatch, concurrency: 8 });

    // Assess
    expect(fired).toBe(8);
    expect(cloud.telemetry.count('SweptWakeUpPastBound')).toBe(0);
    expect(cloud.telemetry.logs.filter((log) => log.level === 'error')).toEqual([]);
  });
});
