import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { cancelJob } from '../../shared/app/cancel-job.js';
import { completeWorkflow } from '../../shared/app/complete-workflow.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { rearmStoredWakeUps } from '../../shared/app/rearm-stored-wake-ups.js';
import type { TimerRequest } from '../../shared/ports/timers.js';
import { at } from '../support/fixtures.js';
import { DiskDynamo } from './support/disk-dynamo.js';
import { submit, testManager, tokenOf, type TestManager } from './support/test-manager.js';

const job = (jobId: string, timeoutSeconds: number) => ({
  jobId,
  timeoutSeconds,
  workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }],
});

/** The local cloud's own restart recovery (the production function, not a copy of its query). */
async function everyWakeUp(m: TestManager) {
  const armed: TimerRequest[] = [];
  const returned = await rearmStoredWakeUps(m.jobs, { arm: async (timer) => void armed.push(timer) });
  expect(returned).toEqual(armed);
  return armed;
}

describe('restart recovery: after a restart the timer index holds every RUNNING job\'s wake-up (dynalite on disk)', () => {
  let disk: DiskDynamo;
  let m: TestManager;
  beforeEach(async () => {
    disk = new DiskDynamo();
    m = await testManager(await disk.start());
  });
  afterEach(() => disk.remove());

  /** Closes the store and opens the same data directory again, with a fresh manager over it. */
  async function restart(): Promise<TestManager> {
    const restarted = await testManager(await disk.restart());
    restarted.clock.set(m.clock.now());
    return restarted;
  }

  it('returns the wake-up of every RUNNING job and none of the completed, cancelled or timed-out ones', async () => {
    // Prepare
    const running = ['job-r1', 'job-r2', 'job-r3', 'job-r4', 'job-r5'];
    for (const [i, jobId] of running.entries()) await submit(m, job(jobId, 100 + i));
    const completed = await submit(m, job('job-completed', 100));
    await submit(m, job('job-cancelled', 100));
    await submit(m, job('job-timed-out', 5));
    await completeWorkflow(m.deps, {
      jobId: 'job-completed',
      workflowId: 'wf-1',
      workerId: 'worker-a',
      outcome: 'completed',
      token: tokenOf(completed, 'wf-1'),
    });
    await cancelJob(m.deps, 'job-cancelled', undefined);
    m.clock.set(at(5));
    await fireJobTimer(m.deps, m.timers.expectArmed('job-timed-out'));
    // Act
    const wakeUps = await everyWakeUp(await restart());
    // Assess
    expect(wakeUps.sort((a, b) => a.jobId.localeCompare(b.jobId))).toEqual(
      running.map((jobId, i) => ({ scope: 'job', jobId, fenceToken: 1, dueAt: at(100 + i) })),
    );
  });

  it('a recovered wake-up carries the job\'s current fence token after a takeover', async () => {
    // Prepare
    await submit(m, job('job-1', 100));
    await takeOverJob(m.deps, 'job-1');
    // Act
    const wakeUps = await everyWakeUp(await restart());
    // Assess
    expect(wakeUps).toEqual([{ scope: 'job', jobId: 'job-1', fenceToken: 2, dueAt: at(100) }]);
  });

  it('a wake-up recovered after its due time times the job out when fired', async () => {
    // Prepare
    await submit(m, job('job-1', 100));
    m.clock.set(at(500));
    const restarted = await restart();
    const [recovered] = await everyWakeUp(restarted);
    if (!recovered) throw new Error('one wake-up expected');
    // Act
    await fireJobTimer(restarted.deps, recovered);
    // Assess
    expect((await restarted.getJob('job-1')).status).toBe('TIMED_OUT');
  });
});
