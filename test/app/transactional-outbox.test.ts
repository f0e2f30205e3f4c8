import { beforeEach, describe, expect, it } from 'vitest';
import { OUTBOX_RETRY_MS } from '../../shared/app/decide-and-save.js';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import { JobTimedOut } from '../../shared/events/job-timed-out.js';
import { at } from '../support/fixtures.js';
import { submit, useTestManager } from './support/test-manager.js';

const body = { jobId: 'job-1', timeoutSeconds: 60, workflows: [{ workflowId: 'wf-1', workerId: 'worker-a' }] };

describe('the transactional outbox: an event decided with a state change is never lost (dynalite)', () => {
  const m = useTestManager();
  beforeEach(async () => {
    await submit(m, body);
  });

  /** The timeout fires while the bus is down: the decision is written, the publish waits for a retry. */
  async function timeOutWhileBusIsDown(): Promise<void> {
    const timer = m.timers.expectArmed('job-1');
    m.clock.set(at(60));
    m.bus.failNextPublishes(1);
    await fireJobTimer(m.deps, timer);
  }

  it('when the publish fails, the TIMED_OUT state is stored together with the unpublished JobTimedOut and a retry wake-up', async () => {
    // Prepare
    const publishedBefore = m.bus.published.length;
    // Act
    await timeOutWhileBusIsDown();
    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.outbox?.map((event) => event.detailType)).toEqual(['JobTimedOut']);
    expect(JobTimedOut.parse(job.outbox?.[0]?.detail)).toMatchObject({ jobId: 'job-1', reason: 'timeout' });
    expect(job.timerDueAt).toBe(at(60) + OUTBOX_RETRY_MS);
    expect(m.bus.published.length).toBe(publishedBefore);
  });

  it('the sweep finds the retry wake-up in the sparse index, publishes the outbox once and clears it', async () => {
    // Prepare
    await timeOutWhileBusIsDown();
    m.clock.set(at(60) + OUTBOX_RETRY_MS + 10_000);
    // Act
    const { fired } = await sweepJobTimers(m.deps);
    // Assess
    expect(fired).toBe(1);
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
    const job = await m.getJob('job-1');
    expect(job.outbox).toBeUndefined();
    expect(job.timerDueAt).toBeUndefined();
    expect(job.status).toBe('TIMED_OUT');
  });

  it('after the outbox is cleared, a later sweep finds nothing and publishes nothing more', async () => {
    // Prepare
    await timeOutWhileBusIsDown();
    m.clock.set(at(60) + OUTBOX_RETRY_MS + 10_000);
    await sweepJobTimers(m.deps);
    m.clock.set(at(3_600));
    // Act
    const { fired } = await sweepJobTimers(m.deps);
    // Assess
    expect(fired).toBe(0);
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
  });

  it('a redelivery of the job\'s own timer publishes the outbox too, without deciding again', async () => {
    // Prepare
    await timeOutWhileBusIsDown();
    const stale = m.timers.armed('job-1')[0];
    if (!stale) throw new Error('the submission armed a timer');
    m.clock.set(at(61));
    // Act
    await fireJobTimer(m.deps, stale);
    // Assess
    expect(m.bus.published.map((event) => event.detailType)).toEqual(['JobTimedOut']);
    const job = await m.getJob('job-1');
    expect(job.outbox).toBeUndefined();
    expect(job.finishedAt).toBe(at(60));
  });
});
