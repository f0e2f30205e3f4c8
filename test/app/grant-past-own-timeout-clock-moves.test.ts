import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { reportProgress } from '../../shared/app/report-progress.js';
import { requestExtension } from '../../shared/app/request-extension.js';
import { at } from '../support/fixtures.js';
import { jobWithSilentGrantHolder } from './support/silent-grant-job.js';
import { useTestManager } from './support/test-manager.js';

/**
 * A grant is applied to a job only while the job is alive by the grants that still count (a failed
 * worker's do not): `applyGrantToJobs` reads which grants no longer count only for a job past its own
 * timeout, and judged that on the request's first clock reading, taken before its reads and the
 * grant record's write, while the job decided on a fresh reading. A clock that crossed the job's own
 * timeout in between decided "past its own timeout" with no grant retired: a failed worker's grant
 * kept the job looking alive, the job past its real deadline took the new grant, and its wake-up,
 * dropping the failed worker's grant, found it running on the new one.
 */
describe('a grant decided as the clock crosses the job\'s own timeout (dynalite)', () => {
  const m = useTestManager();

  it('a request begun 1 ms before the own timeout, whose reads and writes take 5 ms, does not revive a job kept only by a failed worker\'s grant', async () => {
    // Prepare: own timeout 120 s. worker-a is granted 30 s at 0 s and falls silent (failed from
    // 91.001 s); so from then on the job's real deadline is 120 s. worker-b reports progress.
    const { tokenB } = await jobWithSilentGrantHolder(m, 120);
    for (let i = 1; i <= 11; i++) {
      m.clock.set(at(i * 10));
      await reportProgress(m.deps, { jobId: 'job-1', workflowId: 'wf-b', workerId: 'worker-b', token: tokenB, progress: i / 100 });
    }
    const wakeUp = m.timers.expectArmed('job-1');
    // Writing a grant record takes 5 ms.
    const recordGrant = m.jobs.recordGrant.bind(m.jobs);
    m.jobs.recordGrant = async (...args) => {
      const index = await recordGrant(...args);
      m.clock.set(m.clock.now() + 5);
      return index;
    };

    // Act: worker-b asks 1 ms before the own timeout; the job is decided at 120.004 s.
    m.clock.set(at(119.999));
    const answer = await requestExtension(m.deps, { workerId: 'worker-b', token: tokenB, currentProgress: 0.2 });

    // Assess: the job was past its real deadline (120 s) when it decided: no grant, and its wake-up times it out.
    expect(answer).toMatchObject({ granted: false });
    m.clock.set(at(120.5));
    await fireJobTimer(m.deps, wakeUp);
    const job = await m.getJob('job-1');
    expect({ status: job.status, total: job.tracking.totalExtensionsGranted }).toEqual({ status: 'TIMED_OUT', total: 0 });
  });
});
