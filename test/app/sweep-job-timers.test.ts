import { OUTBOX_RETRY_MS } from '../../shared/app/decide-and-save.js';
import { beforeEach, describe, expect, it } from 'vitest';
import { timerShardOf } from '../../shared/adapters/aws/jobs-table.js';
import { SWEEP_CONCURRENCY, SWEEP_GRACE_MS, sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { at } from '../support/fixtures.js';
import { submit, useTestManager } from './support/test-manager.js';

const job = (jobId: string, timeoutSeconds: number) => ({
  jobId,
  timeoutSeconds,
  workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }],
});

describe('the backstop sweep fires overdue wake-ups from the sparse timer index (dynalite)', () => {
  const m = useTestManager();
  beforeEach(async () => {
    // Their own timer deliveries are "lost": the tests never fire them.
    await submit(m, job('job-overdue', 10));
    await submit(m, job('job-later', 100));
  });

  it('times out a job whose wake-up is overdue and leaves a job that is not yet due untouched', async () => {
    // Prepare
    const laterBefore = await m.getJob('job-later');
    m.clock.set(at(20));
    // Act
    const { fired } = await sweepJobTimers(m.deps);
    // Assess
    expect(fired).toBe(1);
    expect((await m.getJob('job-overdue')).status).toBe('TIMED_OUT');
    expect(await m.getJob('job-later')).toEqual(laterBefore);
    expect(m.bus.ofType('JobTimedOut').map((event) => event.detail['jobId'])).toEqual(['job-overdue']);
  });

  it('a wake-up overdue by less than the grace period is left to its own delivery', async () => {
    // Prepare
    m.clock.set(at(10) + SWEEP_GRACE_MS - 1);
    // Act
    const { fired } = await sweepJobTimers(m.deps);
    // Assess
    expect(fired).toBe(0);
    expect((await m.getJob('job-overdue')).status).toBe('RUNNING');
  });

  it('a job the sweep timed out leaves the index, so the next sweep does not fire it again', async () => {
    // Prepare
    m.clock.set(at(20));
    await sweepJobTimers(m.deps);
    m.clock.set(at(30));
    // Act
    const { fired } = await sweepJobTimers(m.deps);
    // Assess
    expect(fired).toBe(0);
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
  });

  it('a job whose publish keeps failing does not stop the sweep from firing the overdue jobs after it, and backs off (findings 9, 10)', async () => {
    // Prepare: one more overdue job than the sweep fires at once; the first in index order always fails
    const dueAt = new Map<string, number>([['job-overdue', at(10)]]);
    for (let i = 0; i < SWEEP_CONCURRENCY; i++) {
      await submit(m, job(`job-extra-${i}`, 30 + i));
      dueAt.set(`job-extra-${i}`, at(30 + i));
    }
    const indexOrder = (a: string, b: string) =>
      Number(timerShardOf(a)) - Number(timerShardOf(b)) || (dueAt.get(a) ?? 0) - (dueAt.get(b) ?? 0);
    const [poison, ...healthy] = [...dueAt.keys()].sort(indexOrder);
    m.bus.refuseEventsOf(String(poison));
    m.clock.set(at(60));
    // Act
    const sweep = sweepJobTimers(m.deps);
    // Assess
    await expect(sweep).resolves.toEqual({ fired: SWEEP_CONCURRENCY + 1 });
    const poisoned = await m.getJob(String(poison));
    expect(poisoned).toMatchObject({ status: 'TIMED_OUT', outboxFailures: 1, timerDueAt: at(60) + OUTBOX_RETRY_MS });
    const statuses = await Promise.all(healthy.map(async (jobId) => (await m.getJob(jobId)).status));
    expect(statuses).toEqual(healthy.map(() => 'TIMED_OUT'));
    expect(m.bus.ofType('JobTimedOut').map((event) => event.detail['jobId']).sort()).toEqual([...healthy].sort());
  });
});
