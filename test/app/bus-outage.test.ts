import { describe, expect, it } from 'vitest';
import { fireJobTimer } from '../../shared/app/fire-job-timer.js';
import { submitJob } from '../../shared/app/submit-job.js';
import { takeOverJob } from '../../shared/app/take-over-job.js';
import { sweepJobTimers } from '../../shared/app/sweep-job-timers.js';
import type { EpochMs } from '../../shared/domain/time.js';
import { at, GATE_REGION } from '../support/fixtures.js';
import { useTestManager, type TestManager } from './support/test-manager.js';

/**
 * deciding and writing never wait on the bus. With EventBridge down, timers still
 * decide and write; the outbox is retried on its own, backed off, and published once the bus is back.
 */
describe('an EventBridge outage does not stop timeouts (dynalite)', () => {
  const m = useTestManager({ policy: { gateFallbackSeconds: 300 } });
  const workflows = [{ workflowId: 'wf-1', workerId: 'worker-a' }];

  /**
   * Runs time forward in `stepMs` steps to `until`: each step fires the job's armed wake-up when due (as the
   * scheduler would, a handler failure counting as a failed delivery) and runs the backstop sweep.
   */
  async function runUntil(t: TestManager, jobId: string, until: EpochMs, stepMs = 5_000): Promise<void> {
    for (let now = t.clock.now(); now <= until; now += stepMs) {
      t.clock.set(now);
      const timer = t.timers.current(jobId);
      if (timer && timer.dueAt <= now) await fireJobTimer(t.deps, timer).catch(() => undefined);
      await sweepJobTimers(t.deps).catch(() => undefined);
    }
  }

  it('a gate-coordinated job with a pending outbox and a bus that always throws still times out by the gate fallback', async () => {
    // Prepare
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, gateRegion: GATE_REGION, workflows });
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    m.clock.set(at(5));
    await takeOverJob(m.deps, 'job-1').catch(() => undefined);
    expect((await m.getJob('job-1')).outbox?.map((event) => event.detailType)).toEqual(['JobLeaderTransfer']);

    // Act
    await runUntil(m, 'job-1', at(60 + 300 + 70), 20_000);

    // Assess
    const job = await m.getJob('job-1');
    expect(job.status).toBe('TIMED_OUT');
    expect(job.tracking.timeoutReason).toBe('gate_fallback');
    expect(job.finishedAt).toBeLessThanOrEqual(at(60 + 300 + 70));
    expect(job.outbox?.map((event) => event.detailType)).toContain('JobLeaderTransfer');
    expect(job.timerDueAt).toBeDefined();
  });

  it('a local-authority job times out while the bus is down; its events go out once the bus is back, once each', async () => {
    // Prepare
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows });
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);
    await runUntil(m, 'job-1', at(120), 10_000);
    expect((await m.getJob('job-1')).status).toBe('TIMED_OUT');
    expect(m.bus.published).toEqual([]);

    // Act: the bus comes back
    m.bus.failNextPublishes(0);
    await runUntil(m, 'job-1', at(120 + 16 * 60), 60_000);

    // Assess
    expect(m.bus.ofType('JobTimedOut')).toHaveLength(1);
    const job = await m.getJob('job-1');
    expect(job.outbox).toBeUndefined();
    expect(job.timerDueAt).toBeUndefined();
  });

  it('while the bus stays down, the outbox retries back off instead of firing on every sweep', async () => {
    // Prepare
    await submitJob(m.deps, { jobId: 'job-1', timeoutSeconds: 60, workflows });
    let attempts = 0;
    const publish = m.deps.bus.publish.bind(m.deps.bus);
    m.deps.bus = { publish: (events) => ((attempts += 1), publish(events)) };
    m.bus.failNextPublishes(Number.MAX_SAFE_INTEGER);

    // Act: one hour of outage
    await runUntil(m, 'job-1', at(60 + 3_600), 60_000);

    // Assess: 30 s doubling to a 15-minute cap is about 9 attempts in the hour, not one per sweep (60)
    expect(attempts).toBeGreaterThanOrEqual(5);
    expect(attempts).toBeLessThanOrEqual(12);
    expect((await m.getJob('job-1')).status).toBe('TIMED_OUT');
  });
});
