import { beforeEach, describe, expect, it } from 'vitest';
import { DynamoJobStore } from '../../../shared/adapters/aws/dynamo-job-store.js';
import { boundWithFailingSweepsMs, DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { POISON_AFTER_FAILING_SWEEPS, SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { submit, useTestManager } from '../support/test-manager.js';
import { TimeoutWriteFaults } from '../support/timeout-write-faults.js';

/**
 * A throttle that outlasts one sweep's two tries (a hot job item written by many workers at once)
 * costs one sweep interval per sweep it lasts, no more: the wake-up stays due for every next sweep
 * and is tried twice in each, until it has failed in `POISON_AFTER_FAILING_SWEEPS` in a row.
 */
describe('a swept timeout whose write is throttled in several sweeps in a row (dynalite)', () => {
  // Each write dated by the test's clock: the sweep that made it.
  const throttled = new TimeoutWriteFaults(() => m.clock.now());
  const m = useTestManager({ store: (doc, tableName) => throttled.wrap(new DynamoJobStore(doc, tableName)) });
  beforeEach(() => throttled.clear());

  it.each([
    { sweepsThrottled: 1, triesPerSweep: [0, 2, 1] },
    { sweepsThrottled: 2, triesPerSweep: [0, 2, 2, 1] },
    // The third failing sweep takes it for poison: it skips the next sweep.
    { sweepsThrottled: 3, triesPerSweep: [0, 2, 2, 2, 0, 1] },
  ])('throttled through $sweepsThrottled sweep(s): tried twice in each, ending by the bound that many sweeps state', async ({ sweepsThrottled, triesPerSweep }) => {
    // Prepare: a 60 s job whose own wake-up was lost; every try of its timeout is throttled
    // through `sweepsThrottled` sweeps. The first sweep runs just before the wake-up is past its
    // grace (the worst phase for the bound).
    await submit(m, { jobId: 'job-1', timeoutSeconds: 60, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] });
    throttled.inject('job-1', 'fail', 2 * sweepsThrottled);
    const deadline = at(60);

    // Act
    const tries: number[] = [];
    let endedAt: number | undefined;
    for (let sweep = 0; endedAt === undefined && sweep < 8; sweep++) {
      const sweepAt = deadline + SWEEP_GRACE_MS - 1 + sweep * SWEEP_INTERVAL_MS;
      m.clock.set(sweepAt);
      await sweepJobTimers(m.deps);
      tries.push(throttled.triesOf('job-1', sweepAt));
      if ((await m.getJob('job-1')).status !== 'RUNNING') endedAt = sweepAt;
    }

    // Assess
    expect(POISON_AFTER_FAILING_SWEEPS).toBe(3);
    expect(tries).toEqual(triesPerSweep);
    expect((await m.getJob('job-1')).status).toBe('TIMED_OUT');
    expect((endedAt as number) - deadline).toBeLessThanOrEqual(boundWithFailingSweepsMs(DETECTION_BOUND_MS, sweepsThrottled));
    expect((endedAt as number) - deadline).toBeGreaterThan(boundWithFailingSweepsMs(DETECTION_BOUND_MS, sweepsThrottled - 1));
  });
});
