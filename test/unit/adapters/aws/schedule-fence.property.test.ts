import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SQS_MAX_DELAY_SECONDS } from '../../../../shared/adapters/aws/sqs-scheduler-timers.js';
import type { TimerRequest } from '../../../../shared/ports/timers.js';
import { SchedulerCloud } from '../../../support/scheduler-cloud.js';

const NOW = Date.UTC(2031, 0, 15, 10, 0, 0, 0);
const FAR_MS = SQS_MAX_DELAY_SECONDS * 1000 + 60_000;

/**
 * A schedule is last writer wins, and arms land in any order (a slow Lambda, Scheduler's conflict
 * pauses): whatever older leaders or attempts arm, in whatever order, the current fence token's
 * schedule is the one its own last arm made.
 */
describe("stale arms never replace the current fence token's schedule (Scheduler in memory)", () => {
  const cloud = new SchedulerCloud();
  cloud.install();

  it('holds for any order of arms by the current and older tokens', async () => {
    const clock = { at: NOW, now: () => clock.at, set: (at: number) => void (clock.at = at) };
    const timers = cloud.timers(clock);
    const arms = fc.array(fc.record({ stale: fc.boolean(), olderBy: fc.integer({ min: 1, max: 4 }), aheadMinutes: fc.integer({ min: 0, max: 600 }) }), { maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 5, max: 1_000 }), arms, fc.integer({ min: 0, max: 600 }), async (current, landing, lastAheadMinutes) => {
        cloud.schedules.clear();
        const wakeUp = (fenceToken: number, aheadMinutes: number): TimerRequest => ({ scope: 'job', jobId: 'job-1', fenceToken, dueAt: NOW + FAR_MS + aheadMinutes * 60_000 });
        // The current token's last arm, then any mix of its earlier ones' and older tokens' arms landing after it
        const last = wakeUp(current, lastAheadMinutes);
        await timers.arm(last);
        let own = last;
        for (const arm of landing) {
          const timer = wakeUp(arm.stale ? current - arm.olderBy : current, arm.aheadMinutes);
          await timers.arm(timer);
          if (!arm.stale) own = timer;
        }
        expect(cloud.scheduled().filter((timer) => timer.fenceToken === current)).toEqual([own]);
      }),
      { numRuns: 200 },
    );
  });
});
