import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LocalTimers } from '../../../../shared/adapters/local/local-timers.js';
import type { TimerRequest } from '../../../../shared/ports/timers.js';
import { T0 } from '../../../support/fixtures.js';

// vitest fake timers drive both setTimeout and Date.now, so the clock and the OS timer agree.
const clock = { now: () => Date.now() };

interface Harness {
  timers: LocalTimers;
  fired: Array<{ jobId: string; dueAt: number; firedAt: number }>;
  errors: Array<{ jobId: string; error: unknown }>;
}

function harness(fire?: (timer: TimerRequest) => Promise<void>): Harness {
  const fired: Harness['fired'] = [];
  const errors: Harness['errors'] = [];
  const timers = new LocalTimers(
    clock,
    async (timer) => {
      fired.push({ jobId: timer.jobId, dueAt: timer.dueAt, firedAt: Date.now() });
      await fire?.(timer);
    },
    (error, timer) => errors.push({ jobId: timer.jobId, error }),
  );
  return { timers, fired, errors };
}

const timer = (jobId: string, dueInMs: number): TimerRequest => ({ scope: 'job', jobId, fenceToken: 1, dueAt: T0 + dueInMs });

describe('LocalTimers: the in-process scheduler of the embedded local cloud', () => {
  let h: Harness;
  beforeEach(() => {
    vi.useFakeTimers({ now: T0 });
    h = harness();
  });
  afterEach(() => {
    h.timers.stop();
    vi.useRealTimers();
  });

  it('fires timers in due order, whatever order they were armed in, each at its due time', async () => {
    // Prepare
    await h.timers.arm(timer('job-c', 300));
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-b', 200));
    // Act
    await vi.advanceTimersByTimeAsync(300);
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
    await vi.advanceTimersByTimeAsync(99);
    // Assess
    expect(h.fired).toEqual([]);
    expect(h.timers.pending).toBe(1);
  });

  it('a re-arm for a later time supersedes the earlier one: the job fires once, at the later time', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-a', 500));
    // Act
    await vi.advanceTimersByTimeAsync(499);
    const beforeLater = [...h.fired];
    await vi.advanceTimersByTimeAsync(1_000);
    // Assess
    expect(beforeLater).toEqual([]);
    expect(h.fired).toEqual([{ jobId: 'job-a', dueAt: T0 + 500, firedAt: T0 + 500 }]);
  });

  it('a re-arm for an earlier time supersedes the later one: the job fires once, at the earlier time', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 500));
    await h.timers.arm(timer('job-a', 100));
    // Act
    await vi.advanceTimersByTimeAsync(1_000);
    // Assess
    expect(h.fired).toEqual([{ jobId: 'job-a', dueAt: T0 + 100, firedAt: T0 + 100 }]);
  });

  it('a disarmed timer never fires, and the others still do', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-b', 200));
    await h.timers.disarm('job', 'job-a');
    // Act
    await vi.advanceTimersByTimeAsync(1_000);
    // Assess
    expect(h.fired.map((f) => f.jobId)).toEqual(['job-b']);
    expect(h.timers.pending).toBe(0);
  });

  it('the same job id under the other scope is a separate timer', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm({ ...timer('job-a', 200), scope: 'gate' });
    await h.timers.disarm('gate', 'job-a');
    // Act
    await vi.advanceTimersByTimeAsync(1_000);
    // Assess
    expect(h.fired).toEqual([{ jobId: 'job-a', dueAt: T0 + 100, firedAt: T0 + 100 }]);
  });

  it('a timer armed already overdue (a restart) fires at once', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', -60_000));
    // Act
    await vi.advanceTimersByTimeAsync(0);
    // Assess
    expect(h.fired.map((f) => f.jobId)).toEqual(['job-a']);
  });

  it('a failing fire is reported to onError and does not stop the timers after it', async () => {
    // Prepare
    h.timers.stop();
    h = harness(async (t) => {
      if (t.jobId === 'job-a') throw new Error('handler failed');
    });
    await h.timers.arm(timer('job-a', 100));
    await h.timers.arm(timer('job-b', 200));
    // Act
    await vi.advanceTimersByTimeAsync(1_000);
    // Assess
    expect(h.errors.map((e) => e.jobId)).toEqual(['job-a']);
    expect(h.fired.map((f) => f.jobId)).toEqual(['job-a', 'job-b']);
  });

  it('after stop() nothing fires', async () => {
    // Prepare
    await h.timers.arm(timer('job-a', 100));
    // Act
    h.timers.stop();
    await vi.advanceTimersByTimeAsync(1_000);
    // Assess
    expect(h.fired).toEqual([]);
  });
});
