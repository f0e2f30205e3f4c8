import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { at } from '../support/fixtures.js';
import { jobWithSilentGrantHolder, workerBTakesItsWholeBudget } from './support/silent-grant-job.js';
import { useTestManager } from './support/test-manager.js';

/**
 * A job kept alive past its own timeout by grants wakes up when one of their workers, silent, would
 * be failed (`grantLapseCheckAt`). The fire reads the workers' health (`grantsInForce`) before it
 * decides, and the clock moves meanwhile (the reads take time; the wake-up may arrive a few ms
 * before its due time by the handler's clock). A worker not yet failed at the read but failing by the
 * decision was taken for a due timeout: the job, far from its deadline and not stuck, ended TIMED_OUT
 * as 'stuck'.
 */
describe('the grant lapse check when the clock moves during the fire (dynalite)', () => {
  const m = useTestManager();

  it('a wake-up a millisecond before a silent worker fails, whose reads take a few ms, leaves the job running on the other worker\'s grants', async () => {
    // Prepare: own timeout 60 s, stuck threshold 600 s. worker-a is granted 30 s at 0 s and falls
    // silent: it fails at 91.001 s. worker-b makes progress and is granted its whole budget (58.125 s),
    // so without worker-a's grant the job's deadline is 118.125 s.
    const { tokenB } = await jobWithSilentGrantHolder(m, 60);
    await workerBTakesItsWholeBudget(m, tokenB);
    m.clock.set(at(60));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    const lapseCheck = m.timers.expectArmed('job-1');
    expect(lapseCheck.dueAt).toBe(at(91.001));
    // Reading the job's grant records takes 5 ms.
    const findGrantRecords = m.jobs.findGrantRecords.bind(m.jobs);
    m.jobs.findGrantRecords = async (...args) => {
      const records = await findGrantRecords(...args);
      m.clock.set(m.clock.now() + 5);
      return records;
    };

    // Act: the wake-up arrives 1 ms before its due time by this handler's clock.
    m.clock.set(lapseCheck.dueAt - 1);
    await fireJobTimer(m.deps, lapseCheck);

    // Assess: not stuck, not past its deadline (118.125 s without worker-a's grant): still running.
    const job = await m.getJob('job-1');
    expect({ status: job.status, reason: job.tracking.timeoutReason }).toEqual({ status: 'RUNNING', reason: undefined });
    // And its next wake-up drops worker-a's grant: the job then runs to 118.125 s, no further.
    m.clock.set(at(92));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-1'));
    expect((await m.getJob('job-1')).tracking.totalExtensionsGranted).toBe(58.125);
  });
});
