import { beforeEach, describe, expect, it } from 'vitest';
import { LocalTimers } from '../../../../shared/adapters/local/local-timers.js';
import { VirtualClock } from '../../../../shared/adapters/local/virtual-clock.js';
import type { TimerRequest } from '../../../../shared/ports/timers.js';
import { T0 } from '../../../support/fixtures.js';

interface Harness {
  clock: VirtualClock;
  timers: LocalTimers;
  fired: Array<{ jobId: string; dueAt: number; firedAt: number }>;
  errors: Array<{ jobId: string; error: unknown }>;
}

function harness(fire?: (timer: TimerRequest) => Promise<void>): Harness {
  const clock = new VirtualClock(T0);
  const fired: Harness['fired'] = [];
  const errors: Harness['errors'] = [];
  const timers = new LocalTimers(
    clock,
    async (timer) => {
      fired.push({ jobId: timer.jobId, dueAt: timer.dueAt, firedAt: clock.now() });
      await fire?.(timer);
    },
    (error, timer) => errors.push({ jobId: timer.jobId, error }),
  );
  return { clock, timers, fired, errors };
}

const timer = (jobId: string, dueInMs: number): TimerRequest => ({ scope: 'job', jobId, fenceToken: 1, dueAt: T0 + dueInMs });

describe('LocalTimers: the in-process wake-ups of the embedded local cloud', () => {
  let h: Harness;
  beforeEach(() => {
    h = harness();
  });

  it('fires timers in due order, whatever order they were armed in, each at its due time', async () => {
    // Prepare
    await h.timers.arm(timer('job-c', 300));
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-b', 200));
    // Act
    await h.clock.advance(300);
    // Assess
    expect(h.fired).toEqual([
      { jobId: 'job-a', dueAt: T0 + 100, firedAt: T0 + 100 },
      { jobId: 'job-b', dueAt: T0 + 200, firedAt: T0 + 200 },
      { jobId: 'job-c', dueAt: T0 + 300, firedAt: T0 + 300 },
    ]);
  });

  it('does not fire a timer before its due time', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    // Act
    await h.clock.advance(99);
    // Assess
    expect(h.fired).toEqual([]);
    expect(h.timers.pending).toBe(1);
  });

  // like an SQS delay message, an armed wake-up cannot be withdrawn.
  it('a re-arm adds a wake-up: both fire, each at its own time (the lazy check drops the superseded one)', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 500));
    await h.timers.arm(timer('job-a', 100));
    // Act
    await h.clock.advance(1_000);
    // Assess
    expect(h.fired).toEqual([
      { jobId: 'job-a', dueAt: T0 + 100, firedAt: T0 + 100 },
      { jobId: 'job-a', dueAt: T0 + 500, firedAt: T0 + 500 },
    ]);
  });

  it('disarm withdraws nothing: an armed wake-up still fires', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm({ ...timer('job-a', 200), scope: 'gate' });
    await h.timers.disarm({ scope: 'job', jobId: 'job-a', fenceToken: 1 });
    // Act
    await h.clock.advance(1_000);
    // Assess
    expect(h.fired.map((f) => f.dueAt)).toEqual([T0 + 100, T0 + 200]);
    expect(h.timers.pending).toBe(0);
  });

  it('a timer armed already overdue (a restart) fires at once', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', -60_000));
    // Act
    await h.clock.settle();
    // Assess
    expect(h.fired).toEqual([{ jobId: 'job-a', dueAt: T0 - 60_000, firedAt: T0 }]);
  });

  it('an advance answers only once the fired handlers have finished', async () => {
    // Prepare: a handler that takes real time (a store call)
    let finished = 0;
    h = harness(async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      finished++;
    });
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-b', 100));
    // Act
    await h.clock.advance(100);
    // Assess
    expect(finished).toBe(2);
  });

  it('a failing fire is reported to onError and does not stop the timers after it', async () => {
    // Prepare
    h = harness(async (t) => {
      if (t.jobId === 'job-a') throw new Error('handler failed');
    });
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-b', 200));
    // Act
    await h.clock.advance(1_000);
    // Assess
    expect(h.errors.map((e) => e.jobId)).toEqual(['job-a']);
    expect(h.fired.map((f) => f.jobId)).toEqual(['job-a', 'job-b']);
  });

  it('after stop() nothing fires', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    // Act
    h.timers.stop();
    await h.clock.advance(1_000);
    // Assess
    expect(h.fired).toEqual([]);
  });
});
