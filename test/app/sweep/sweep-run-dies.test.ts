import { describe, expect, it } from 'vitest';
import { boundWithDeadSweepsMs, DETECTION_BOUND_MS, SWEEP_INTERVAL_MS } from '../../../shared/app/detection-bound.js';
import { SWEEP_GRACE_MS, sweepJobTimers } from '../../../shared/app/sweep-job-timers.js';
import { at } from '../../support/fixtures.js';
import { dyingProcess } from '../support/dying-process.js';
import { submit, useTestManager, type TestManager } from '../support/test-manager.js';

const JOB_IDS = ['job-1', 'job-2'];
const DEADLINE = at(60);
/** The first run comes just before the wake-ups are past their grace (the worst phase for the bound); the second dies. */
const FIRST_RUN_AT = DEADLINE + SWEEP_GRACE_MS - 1;

/**
 * Two 60 s jobs whose own wake-ups are lost (nothing delivers them); the sweep's second run, the
 * first to find them overdue, dies before its `beforeWrite`-th store write; then four more runs.
 * Returns when each job was first seen ended, and which were still running after the death.
 */
async function sweepsWithOneDeath(m: TestManager, beforeWrite: number) {
  for (const jobId of JOB_IDS) await submit(m, { jobId, timeoutSeconds: 60, stuckThresholdSeconds: 3_600, workflows: [{ workflowId: 'wf-1', workerId: `worker-${jobId}` }] });
  m.clock.set(FIRST_RUN_AT);
  await sweepJobTimers(m.deps);
  m.clock.set(FIRST_RUN_AT + SWEEP_INTERVAL_MS);
  const dying = dyingProcess(m, beforeWrite);
  await sweepJobTimers(dying.deps).catch(() => undefined);
  dying.revive();
  if (!dying.died()) throw new Error(`the run made fewer than ${beforeWrite} writes`);
  const runningAfterDeath = await Promise.all(JOB_IDS.map(async (jobId) => (await m.getJob(jobId)).status === 'RUNNING'));
  const endedAt = new Map<string, number>();
  for (let run = 2; run < 6; run++) {
    for (const jobId of JOB_IDS) if (!endedAt.has(jobId) && (await m.getJob(jobId)).status !== 'RUNNING') endedAt.set(jobId, m.clock.now());
    m.clock.set(FIRST_RUN_AT + run * SWEEP_INTERVAL_MS);
    await sweepJobTimers(m.deps);
  }
  return { runningAfterDeath, latestEndMs: Math.max(...endedAt.values()) };
}

/**
 * Simulator seeds 2100765 and 2102631 (a crash at any store write): the one sweep run that would have
 * fired a lost wake-up died before its first write, and the next minute's ended the job 71 s past its
 * deadline. A dead run is not retried (`backstop-sweep.ts`): the stated bound gives it one interval
 * (`boundWithDeadSweepsMs`), and nothing a run wrote before it died may hold the next one back.
 */
describe('a sweep run killed at one of its writes (dynalite)', () => {
  const m = useTestManager();

  it('killed before its first write: the next run ends the jobs, past the plain bound, within one interval more', async () => {
    // Act
    const { runningAfterDeath, latestEndMs } = await sweepsWithOneDeath(m, 1);
    // Assess
    expect(runningAfterDeath).toEqual([true, true]);
    expect(latestEndMs - DEADLINE).toBeGreaterThan(DETECTION_BOUND_MS);
    expect(latestEndMs - DEADLINE).toBeLessThanOrEqual(boundWithDeadSweepsMs(DETECTION_BOUND_MS, 1));
  });

  it.each([2, 3, 4])('killed before its write %i: what it wrote stands, and the runs after it end both jobs and send their events', async (beforeWrite) => {
    // Act
    const { latestEndMs } = await sweepsWithOneDeath(m, beforeWrite);
    // Assess
    for (const jobId of JOB_IDS) {
      const job = await m.getJob(jobId);
      expect([job.status, job.outbox ?? []]).toEqual(['TIMED_OUT', []]);
      expect(m.bus.ofType('JobTimedOut').filter((event) => event.detail['jobId'] === jobId)).not.toEqual([]);
    }
    expect(latestEndMs - DEADLINE).toBeLessThanOrEqual(boundWithDeadSweepsMs(DETECTION_BOUND_MS, 1));
  });
});
